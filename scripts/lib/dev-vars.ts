/**
 * Local secrets (node token, upload signing key) for `npm start`, in a dotenv file (.dev.vars,
 * gitignored) where wrangler dev reads them. The file is the owner's alone (mode 0600), also when it
 * existed before with wider permissions: it holds secrets.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";

const OWNER_ONLY = 0o600;

/**
 * The value of `name` in the dotenv file at `path`, appending a random one when it has none.
 *
 * @example const token = ensureDevSecret(".dev.vars", "NODE_TOKEN");
 */
export function ensureDevSecret(path: string, name: string): string {
  const existing = existsSync(path) ? readFileSync(path, "utf8") : "";
  // Before anything is read back or added: a file left world-readable by an older version is fixed too.
  if (existing) chmodSync(path, OWNER_ONLY);
  const match = new RegExp(`^${name}=(.+)$`, "m").exec(existing);
  if (match?.[1]) return match[1].trim();
  const value = randomBytes(24).toString("hex");
  const separator = existing && !existing.endsWith("\n") ? "\n" : "";
  writeFileSync(path, `${existing}${separator}${name}=${value}\n`, { mode: OWNER_ONLY });
  chmodSync(path, OWNER_ONLY); // writeFileSync's mode applies only to a file it creates, and under the umask
  return value;
}
