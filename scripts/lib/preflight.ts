/**
 * npm start's preflight: the system packages the platform runs (scripts/system-packages.json, `for:
 * platform`), checked before anything starts, so a missing one is named with the command that installs
 * it instead of surfacing as a node that cannot decode or render.
 */
import { installCommand, missingPackages, type SystemPackage, systemPackages } from "../system-packages.mjs";

export interface Preflight {
  /** Platform packages npm start cannot run without; empty when it may start. */
  missing: SystemPackage[];
  /** What to print: each missing package, why it is needed, and the install command. */
  message: string;
}

/**
 * @example preflight().missing // [] on a machine with the README's packages
 */
export function preflight(
  packages: SystemPackage[] = systemPackages(),
  findMissing: (packages: SystemPackage[]) => SystemPackage[] = missingPackages,
): Preflight {
  const required = packages.filter((pkg) => pkg.for === "platform" && pkg.optional === undefined);
  const missing = findMissing(required);
  if (missing.length === 0) return { missing, message: "" };
  const lines = missing.map((pkg) => `  ${pkg.name}: ${pkg.why}`);
  const message = [
    `npm start needs ${missing.length === 1 ? "a system package" : "system packages"} that ${missing.length === 1 ? "is" : "are"} not installed:`,
    ...lines,
    `Install with: ${installCommand(missing.map((pkg) => pkg.name))}`,
    "(every package the platform and its tests use: the apt-get line in README.md)",
  ].join("\n");
  return { missing, message };
}
