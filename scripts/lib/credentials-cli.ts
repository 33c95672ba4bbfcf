/**
 * The administration CLI shared by API keys (`npm run keys`) and node identities (`npm run nodes`):
 * both are rows {id, name, hash, prefix, created_at, revoked_at} in D1 behind a secret shown once.
 *
 *   create --name NAME   prints the new secret alone on the last line
 *   list
 *   revoke ID
 *
 * Local by default (the D1 database `npm start` uses; --persist-to DIR for another local state
 * folder); --remote manages production D1.
 */
import { parseArgs } from "node:util";
import type { NewSecret } from "../../worker/auth/key-material.ts";
import { applyMigrations, type D1Target, d1Query, sqlString } from "./wrangler.ts";

/** One kind of credential: where its rows live and how a new secret is made. */
export interface CredentialKind {
  /** What one row is called in messages: "key", "node". */
  noun: string;
  /** The npm script that runs this CLI, for the usage line. */
  script: string;
  table: string;
  /** The column holding the secret's SHA-256. */
  hashColumn: string;
  generate: () => Promise<NewSecret>;
  /**
   * `create --service` (keys only): the other variant of this kind, made by its own generator and
   * stored with these extra column values.
   */
  /** A SQL condition on the rows `list` shows (keys: not the users' owner rows). */
  listed?: string;
  service?: { generate: () => Promise<NewSecret>; columns: Record<string, string> };
  /** Commands only this kind has (`keys webhook-secret`): name → run(id, rotate, target) → exit code. */
  extraCommands?: Record<string, (id: string | undefined, rotate: boolean, target: D1Target) => number>;
}

interface CredentialRow {
  id: string;
  name: string;
  prefix: string;
  created_at: number;
  revoked_at: number | null;
}

/** Creates a credential and returns its secret; only the hash reaches the database. */
export async function createCredential(
  kind: CredentialKind,
  name: string,
  target: D1Target,
  service = false,
): Promise<{ id: string; secret: string }> {
  const variant = service ? kind.service : undefined;
  if (service && !variant) throw new Error(`a ${kind.noun} has no --service variant`);
  const made = await (variant?.generate ?? kind.generate)();
  const extra = Object.entries(variant?.columns ?? {});
  const columns = ["id", "name", kind.hashColumn, "prefix", "created_at", ...extra.map(([column]) => column)];
  const values = [
    sqlString(made.id),
    sqlString(name),
    sqlString(made.hash),
    sqlString(made.prefix),
    Date.now(),
    ...extra.map(([, value]) => sqlString(value)),
  ];
  d1Query(`INSERT INTO ${kind.table} (${columns.join(", ")}) VALUES (${values.join(", ")})`, target);
  return { id: made.id, secret: made.secret };
}

function listCredentials(kind: CredentialKind, target: D1Target): CredentialRow[] {
  return d1Query<CredentialRow>(
    `SELECT id, name, prefix, created_at, revoked_at FROM ${kind.table} WHERE ${kind.listed ?? "1"} ORDER BY created_at`,
    target,
  );
}

function revokeCredential(kind: CredentialKind, id: string, target: D1Target): boolean {
  const rows = d1Query<{ id: string }>(
    `UPDATE ${kind.table} SET revoked_at = ${Date.now()} WHERE id = ${sqlString(id)} AND revoked_at IS NULL RETURNING id`,
    target,
  );
  return rows.length > 0;
}

/** Runs one CLI command; the exit code comes back (2: usage). */
export async function runCredentialsCli(kind: CredentialKind, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: "string" },
      remote: { type: "boolean", default: false },
      "persist-to": { type: "string" },
      rotate: { type: "boolean", default: false },
      service: { type: "boolean", default: false },
    },
  });
  const [command, id] = positionals;
  const usage = (problem: string): number => {
    const extras = Object.keys(kind.extraCommands ?? {}).map((name) => ` | ${name} ID`);
    console.error(
      `${problem}\nusage: npm run ${kind.script} -- create --name NAME${kind.service ? " [--service]" : ""} | list | revoke ID${extras.join("")}  [--remote | --persist-to DIR]`,
    );
    return 2;
  };
  const target: D1Target = { remote: values.remote ?? false, persistTo: values["persist-to"] };
  if (!target.remote) applyMigrations(target);
  switch (command) {
    case "create": {
      const name = values.name?.trim();
      if (!name) return usage("create needs --name NAME");
      const service = values.service ?? false;
      if (service && !kind.service) return usage(`a ${kind.noun} has no --service variant`);
      const created = await createCredential(kind, name, target, service);
      const noun = service ? `service ${kind.noun}` : kind.noun;
      console.log(`created ${noun} ${created.id} (${name}); its secret is shown only now:`);
      console.log(created.secret);
      return 0;
    }
    case "list":
      for (const row of listCredentials(kind, target)) {
        const state = row.revoked_at ? `revoked ${new Date(row.revoked_at).toISOString()}` : "active";
        console.log(
          `${row.id}\t${row.prefix}…\t${row.name}\t${new Date(row.created_at).toISOString()}\t${state}`,
        );
      }
      return 0;
    case "revoke":
      if (!id) return usage(`revoke needs a ${kind.noun} ID (see ${kind.script} list)`);
      if (!revokeCredential(kind, id, target)) {
        console.error(`no active ${kind.noun} with id ${id}`);
        return 1;
      }
      console.log(`revoked ${id} (running Workers refuse it within 2 × AUTH_CACHE_TTL_SEC, 30 s by default)`);
      return 0;
    default: {
      const extra = command ? kind.extraCommands?.[command] : undefined;
      if (extra) return extra(id, values.rotate ?? false, target);
      return usage(`unknown command ${command ?? "(none)"}`);
    }
  }
}

/** Runs the CLI when its script is the program, exiting with its code. */
export function runAsProgram(kind: CredentialKind, moduleUrl: string): void {
  if (moduleUrl !== `file://${process.argv[1]}`) return;
  runCredentialsCli(kind, process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
