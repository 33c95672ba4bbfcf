/**
 * API key administration.
 *
 *   npm run keys -- create --name NAME [--remote]   prints the new key alone on the last line
 *   npm run keys -- list [--remote]
 *   npm run keys -- revoke ID [--remote]
 *
 * Local by default (the D1 database `npm start` uses; --persist-to DIR for another local state
 * folder); --remote manages production D1.
 */
import { parseArgs } from "node:util";
import { generateApiKey } from "../worker/auth/key-material.ts";
import { applyMigrations, type D1Target, d1Query, sqlString } from "./lib/wrangler.ts";

interface KeyRow {
  id: string;
  name: string;
  prefix: string;
  created_at: number;
  revoked_at: number | null;
}

/** Creates a key and returns its secret; only the hash reaches the database. */
export async function createKey(name: string, target: D1Target): Promise<{ id: string; key: string }> {
  const made = await generateApiKey();
  d1Query(
    `INSERT INTO api_keys (id, name, key_hash, prefix, created_at) VALUES (${[
      sqlString(made.id),
      sqlString(name),
      sqlString(made.keyHash),
      sqlString(made.prefix),
      Date.now(),
    ].join(", ")})`,
    target,
  );
  return { id: made.id, key: made.key };
}

function listKeys(target: D1Target): KeyRow[] {
  return d1Query<KeyRow>(
    "SELECT id, name, prefix, created_at, revoked_at FROM api_keys ORDER BY created_at",
    target,
  );
}

function revokeKey(id: string, target: D1Target): boolean {
  const rows = d1Query<{ id: string }>(
    `UPDATE api_keys SET revoked_at = ${Date.now()} WHERE id = ${sqlString(id)} AND revoked_at IS NULL RETURNING id`,
    target,
  );
  return rows.length > 0;
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: "string" },
      remote: { type: "boolean", default: false },
      "persist-to": { type: "string" },
    },
  });
  const [command, id] = positionals;
  const target: D1Target = { remote: values.remote ?? false, persistTo: values["persist-to"] };
  if (!target.remote) applyMigrations(target);
  switch (command) {
    case "create": {
      if (!values.name?.trim()) return usage("create needs --name NAME");
      const created = await createKey(values.name.trim(), target);
      console.log(`created key ${created.id} (${values.name.trim()}); it is shown only now:`);
      console.log(created.key);
      return 0;
    }
    case "list":
      for (const row of listKeys(target)) {
        const state = row.revoked_at ? `revoked ${new Date(row.revoked_at).toISOString()}` : "active";
        console.log(
          `${row.id}\t${row.prefix}…\t${row.name}\t${new Date(row.created_at).toISOString()}\t${state}`,
        );
      }
      return 0;
    case "revoke":
      if (!id) return usage("revoke needs a key ID (see keys list)");
      if (!revokeKey(id, target)) {
        console.error(`no active key with id ${id}`);
        return 1;
      }
      console.log(`revoked ${id} (running Workers refuse it within 2 × AUTH_CACHE_TTL_SEC, 30 s by default)`);
      return 0;
    default:
      return usage(`unknown command ${command ?? "(none)"}`);
  }
}

function usage(problem: string): number {
  console.error(
    `${problem}\nusage: npm run keys -- create --name NAME | list | revoke ID  [--remote | --persist-to DIR]`,
  );
  return 2;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
