import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const BUILD_WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "build-web.mjs");

/**
 * Rebuilds web/dist when the console's sources changed since its last build (scripts/build-web.mjs
 * --if-stale: about 0.2 s when nothing changed), so a platform started after a `git pull` or an edit
 * serves the console of the code it runs. Throws when the build fails.
 */
export function buildConsoleIfStale(): void {
  execFileSync(process.execPath, [BUILD_WEB, "--if-stale"], { stdio: "inherit" });
}
