import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/**
 * One SHA-256 over the files under `sources` (paths relative to `root`, files or folders, walked in
 * name order), each file's path and bytes; folders named in `skipped` are left out at any depth. Only
 * content counts: a checkout that rewrites files' times leaves the hash as it was. A missing source
 * counts as empty.
 *
 * @example sourceHash(repoRoot, ["web", "package-lock.json"], new Set(["dist", "node_modules"]))
 */
export function sourceHash(root, sources, skipped) {
  const hash = createHash("sha256");
  const add = (relative) => {
    const full = path.join(root, relative);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      for (const entry of readdirSync(full).sort()) if (!skipped.has(entry)) add(path.join(relative, entry));
      return;
    }
    hash.update(`${relative}\0`).update(readFileSync(full)).update("\0");
  };
  for (const source of sources) add(source);
  return hash.digest("hex");
}
