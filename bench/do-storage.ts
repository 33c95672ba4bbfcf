/**
 * What the Durable Objects left in a wrangler dev state folder (--persist-to): one SQLite file per
 * object under v3/do/<script>-<Class>/, its KV keys in `_cf_KV` and its own tables beside them, and
 * the class's pending alarms in metadata.sqlite. Read with the sqlite3 CLI (Debian: sqlite3), after
 * wrangler dev has stopped, so nothing writes underneath.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

export interface ClassStorage {
  /** Object files (an object that never stored anything has none). */
  objects: number;
  /** Objects that still hold a key or a table row. */
  withData: number;
  /** KV keys plus table rows, all objects together. */
  entries: number;
  /** Alarms still scheduled. */
  alarms: number;
}

/** Tables the runtime keeps for itself in every object file. */
const RUNTIME_TABLES = new Set(["__miniflare_do_name", "_cf_METADATA"]);

function query(file: string, sql: string): string[] {
  return execFileSync("sqlite3", ["-readonly", file, sql], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line !== "");
}

/** Stored entries of one object file: `_cf_KV` keys and the rows of its own SQL tables. */
function entriesOf(file: string): number {
  const tables = query(file, "SELECT name FROM sqlite_master WHERE type = 'table'").filter(
    (name) => !RUNTIME_TABLES.has(name) && !name.startsWith("sqlite_"),
  );
  return tables.reduce(
    (sum, table) => sum + Number(query(file, `SELECT COUNT(*) FROM "${table}"`)[0] ?? 0),
    0,
  );
}

/**
 * Per Durable Object class (e.g. "JobState"), what its objects still store.
 *
 * @example const left = durableObjectStorage(stateDir); left.JobState?.entries // 0 once every entry expired
 */
export function durableObjectStorage(stateDir: string, script = "voxedge"): Record<string, ClassStorage> {
  const root = join(stateDir, "v3", "do");
  const classes: Record<string, ClassStorage> = {};
  if (!existsSync(root)) return classes;
  for (const dir of readdirSync(root)) {
    if (!dir.startsWith(`${script}-`)) continue;
    const files = readdirSync(join(root, dir)).filter(
      (name) => name.endsWith(".sqlite") && name !== "metadata.sqlite",
    );
    const counts = files.map((name) => entriesOf(join(root, dir, name)));
    const metadata = join(root, dir, "metadata.sqlite");
    const alarms = existsSync(metadata)
      ? Number(query(metadata, "SELECT COUNT(*) FROM _cf_ALARM WHERE scheduled_time IS NOT NULL")[0] ?? 0)
      : 0;
    classes[dir.slice(script.length + 1)] = {
      objects: files.length,
      withData: counts.filter((n) => n > 0).length,
      entries: counts.reduce((a, b) => a + b, 0),
      alarms,
    };
  }
  return classes;
}
