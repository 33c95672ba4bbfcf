import { spawn, spawnSync } from "node:child_process";
import { resolve } from "node:path";

/** wrangler from this project's node_modules (npx adds seconds), with no calls home. */
export const WRANGLER = resolve("node_modules/.bin/wrangler");

export const wranglerEnv: NodeJS.ProcessEnv = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_HIDE_BANNER: "true",
};

export const DATABASE = "voxedge";

export interface D1Target {
  /** Production D1 instead of the local one. */
  remote: boolean;
  /** Local state folder (wrangler's --persist-to); default .wrangler/state. */
  persistTo?: string;
}

function targetFlags(target: D1Target): string[] {
  if (target.remote) return ["--remote"];
  return target.persistTo ? ["--local", "--persist-to", target.persistTo] : ["--local"];
}

/** A local D1 file held by a running `wrangler dev` (npm start) refuses writes for a moment. */
const BUSY = /SQLITE_BUSY|database is locked/;
const BUSY_RETRIES = 6;

/**
 * Runs a wrangler command to completion; throws with its output when it fails. A local database
 * that is momentarily locked by a running wrangler dev is retried with a short backoff.
 */
export function runWrangler(args: string[]): string {
  for (let attempt = 0; ; attempt++) {
    const result = spawnSync(WRANGLER, args, { env: wranglerEnv, encoding: "utf8" });
    if (result.status === 0) return result.stdout;
    const output = `${result.stderr}${result.stdout}`;
    if (attempt >= BUSY_RETRIES || !BUSY.test(output)) {
      throw new Error(`wrangler ${args.join(" ")} failed:\n${output}`);
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200 * 2 ** attempt);
  }
}

/** Applies the checked-in D1 migrations (idempotent). */
export function applyMigrations(target: D1Target): void {
  runWrangler(["d1", "migrations", "apply", DATABASE, ...targetFlags(target)]);
}

/** Runs one SQL statement against D1 and returns its rows. */
export function d1Query<T>(sql: string, target: D1Target): T[] {
  const out = runWrangler(["d1", "execute", DATABASE, ...targetFlags(target), "--json", "--command", sql]);
  const results = JSON.parse(out) as { results: T[] }[];
  return results.flatMap((r) => r.results);
}

/** Quotes a value for an SQL string literal. */
export function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

export interface DevOptions {
  /** Another Worker's wrangler.toml (wrangler's -c); default the platform's own. */
  config?: string;
  /** Local state folder; default .wrangler/state. */
  persistTo?: string;
  /** Variables to inject (wrangler's --var), e.g. a NODE_TOKEN for a throwaway stack. */
  vars?: Record<string, string>;
  /** stdout dropped and stderr a pipe (which the caller must read), instead of both on this terminal. */
  quiet?: boolean;
  /** Serve GET /__scheduled, which runs the Worker's cron handler (wrangler dev never fires crons itself). */
  testScheduled?: boolean;
}

/** Starts `wrangler dev` on 127.0.0.1 with local state persisted. */
export function startWranglerDev(port: number, options: DevOptions = {}) {
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(port), "--log-level", "warn"];
  if (options.config) args.push("--config", options.config);
  if (options.persistTo) args.push("--persist-to", options.persistTo);
  if (options.testScheduled) args.push("--test-scheduled");
  for (const [name, value] of Object.entries(options.vars ?? {})) args.push("--var", `${name}:${value}`);
  return spawn(WRANGLER, args, {
    env: wranglerEnv,
    stdio: ["ignore", options.quiet ? "ignore" : "inherit", options.quiet ? "pipe" : "inherit"],
  });
}
