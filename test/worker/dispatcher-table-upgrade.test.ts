/**
 * A Dispatcher whose `waiting` and `leases` tables were made in an older shape (before 2026-11-27 rowid
 * tables with a UNIQUE task_id, five b-trees a grant; then `leases` a WITHOUT ROWID table keyed by lease
 * id, its grants inserting into random leaves) rebuilds them on its first start in today's shape (one
 * b-tree each, `leases` keyed by the task's seq), keeping every row: its waiting tasks are still served
 * in the rule's order, its lease is still found and extended by the node that holds it, and a new task
 * never gets a seq handed out before.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Dispatcher } from "../../durable-objects/dispatcher/dispatcher.ts";
import { SHARED_NODE } from "../../platform/node-identity.ts";
import type { LeaseAsk } from "../../protocol/node.ts";
import { NODE_HEALTH } from "../helpers/node-health.ts";

type Scheduler = DurableObjectStub<Dispatcher>;

const scheduler = (name: string): Scheduler => env.DISPATCHER.get(env.DISPATCHER.idFromName(name));

/** Restarts the object over its storage; the returned stub reaches the new instance. */
async function restart(name: string): Promise<Scheduler> {
  await runInDurableObject(scheduler(name), (_instance, state) => state.abort("restart")).catch(
    () => undefined,
  );
  return scheduler(name);
}

/** The lease table's columns after the key, as both older shapes had them. */
const LEASE_COLUMNS = `owner TEXT NOT NULL, lane TEXT NOT NULL, kind TEXT NOT NULL, attempts INTEGER NOT NULL,
  node_id TEXT NOT NULL, node_name TEXT NOT NULL DEFAULT '', identity_id TEXT NOT NULL DEFAULT '',
  expires_at INTEGER NOT NULL, served INTEGER NOT NULL DEFAULT 0`;

/** The older shapes of `leases`, each as its CREATE statement. */
const OLD_LEASE_TABLES = {
  "rowid, UNIQUE task_id (before 2026-11-27)": `CREATE TABLE leases (
    lease_id TEXT PRIMARY KEY, task_id TEXT NOT NULL UNIQUE, seq INTEGER NOT NULL, ${LEASE_COLUMNS})`,
  "WITHOUT ROWID keyed by lease id": `CREATE TABLE leases (
    lease_id TEXT PRIMARY KEY, task_id TEXT NOT NULL, seq INTEGER NOT NULL, ${LEASE_COLUMNS}) WITHOUT ROWID`,
};

/**
 * Replaces the two tables with older shapes (`leases` made by `createLeases`), holding two waiting tasks
 * and a lease.
 */
function seedOldShape(sql: SqlStorage, createLeases: string): void {
  sql.exec("DROP TABLE waiting");
  sql.exec("DROP TABLE leases");
  sql.exec(`CREATE TABLE waiting (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT NOT NULL UNIQUE, owner TEXT NOT NULL,
    lane TEXT NOT NULL, kind TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0)`);
  sql.exec(createLeases);
  const insertWaiting =
    "INSERT INTO waiting (seq, task_id, owner, lane, kind) VALUES (?, ?, ?, 'batch', 'transcribe')";
  sql.exec(insertWaiting, 5, "t-a", "key-a");
  sql.exec(insertWaiting, 7, "t-b", "key-b");
  // Seqs 8 and 9 were handed out: 8 is under the lease, 9 ended. The counter must not reuse them.
  sql.exec("UPDATE sqlite_sequence SET seq = 9 WHERE name = 'waiting'");
  sql.exec(
    `INSERT INTO leases (lease_id, task_id, seq, owner, lane, kind, attempts, node_id, node_name, identity_id,
       expires_at, served) VALUES ('l-old', 't-leased', 8, 'key-a', 'batch', 'transcribe', 1, 'n1', 'shared', ?, ?, 1)`,
    SHARED_NODE.id,
    Date.now() + 60_000,
  );
}

/** One free slot on node `i` (each its own node, so the fleet's slots never run out here). */
const ask = (i: number): LeaseAsk => ({
  node: { ...NODE_HEALTH, node_id: `n-free-${i}` },
  capacity: 1,
  wait_ms: 0,
  kinds: ["transcribe"],
});

describe.each(
  Object.entries(OLD_LEASE_TABLES),
)("the Dispatcher's tables with leases %s", (oldShape, createLeases) => {
  it("are rebuilt on the first start, keeping the line, the lease and the seq counter", async () => {
    const name = `table-upgrade/${oldShape}`;
    await runInDurableObject(scheduler(name), (_instance, state) =>
      seedOldShape(state.storage.sql, createLeases),
    );
    let stub = await restart(name);

    const shapes = await runInDurableObject(stub, (_instance, state) =>
      state.storage.sql
        .exec<{ name: string; sql: string }>(
          "SELECT name, sql FROM sqlite_master WHERE tbl_name IN ('waiting', 'leases') ORDER BY name",
        )
        .toArray(),
    );
    // Two tables, no index beside them: a grant deletes one row in one b-tree and inserts one in another.
    expect(shapes.map((shape) => shape.name)).toEqual(["leases", "waiting"]);
    expect(shapes.every((shape) => !shape.sql.includes("UNIQUE"))).toBe(true);
    // Keyed by the task's seq (the rowid): a grant's row lands at the b-tree's end, not in a random leaf.
    const leases = shapes.find((shape) => shape.name === "leases")?.sql;
    expect(leases).toContain("seq INTEGER PRIMARY KEY");
    expect(leases).not.toContain("WITHOUT ROWID");

    const lease = await stub.lookup("l-old");
    expect(lease).toMatchObject({ task_id: "t-leased", seq: 8, owner: "key-a", served: 1 });
    expect(await stub.heartbeat("l-old", NODE_HEALTH, SHARED_NODE)).toMatchObject({ task_id: "t-leased" });

    // A new task comes after every seq handed out before the upgrade.
    await stub.enqueue({ task_id: "t-new", owner: "key-c", lane: "batch", kind: "transcribe" });
    const seqs = await runInDurableObject(stub, (_instance, state) =>
      state.storage.sql.exec<{ task_id: string; seq: number }>("SELECT task_id, seq FROM waiting").toArray(),
    );
    expect(seqs).toEqual([
      { task_id: "t-a", seq: 5 },
      { task_id: "t-b", seq: 7 },
      { task_id: "t-new", seq: 10 },
    ]);

    // Idempotent: a second start leaves the rebuilt tables as they are.
    stub = await restart(name);
    // A task re-offered while it is leased is still a duplicate.
    expect(
      await stub.enqueue({ task_id: "t-leased", owner: "key-a", lane: "batch", kind: "transcribe" }),
    ).toBe("duplicate");
    await stub.release("l-old", "finished");
    expect(await stub.lookup("l-old")).toBeNull();
    // The rule over the kept rows (each grant released before the next, under the cap of 2): nothing
    // runs, key-b and key-c were never served, so the older head (t-b) goes first, then key-c's; key-a,
    // served by the old lease, last.
    const granted: string[] = [];
    for (let i = 0; i < 3; i++)
      for (const row of await stub.lease(ask(i), SHARED_NODE)) {
        granted.push(row.task_id);
        await stub.release(row.lease_id, "finished");
      }
    expect(granted).toEqual(["t-b", "t-new", "t-a"]);
  });
});
