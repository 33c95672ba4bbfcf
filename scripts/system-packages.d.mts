/** Types of scripts/system-packages.mjs (plain JavaScript, so it runs before npm install). */
export interface SystemPackage {
  name: string;
  /** The programs it puts on the PATH (none for data: voices, language pairs). */
  bins: string[];
  for: "build" | "platform" | "tests" | "bench";
  why: string;
  /** What npm start does without this platform package; absent: it does not start. */
  optional?: string;
}
export function systemPackages(): SystemPackage[];
export function onPath(bin: string, envPath?: string): boolean;
export function missingPackages(packages?: SystemPackage[]): SystemPackage[];
export function installCommand(names: string[]): string;
