/**
 * Leases stored by an older Dispatcher survive the upgrade: from before node identities (no node_name
 * column) and from before lease ownership (no identity_id column). The columns are added, the held
 * leases keep working, and each stays usable only by the identity that took it: by its recorded name,
 * and with no name (before node identities every node was on the shared token) by the shared identity.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createLeaseTables, isHeldBy, LeaseTable } from "../../durable-objects/dispatcher/lease-table.ts";
import { SHARED_NODE } from "../../platform/node-identity.ts";

const GPU_1 = { id: "node_gpu1", name: "gpu-1" };
const GPU_2 = { id: "node_gpu2", name: "gpu-2" };
/** A per-node identity someone named like the shared one: it is still not the shared token. */
const NAMED_SHARED = { id: "node_imposter", name: "shared" };

/** Runs `body` on a Dispatcher's storage whose leases table was made by an older release. */
async function withOldTable(name: string, columns: string, body: (leases: LeaseTable) => void) {
  const stub = env.DISPATCHER.get(env.DISPATCHER.idFromName(name));
  await runInDurableObject(stub, (_instance, state) => {
    const sql = state.storage.sql;
    sql.exec("DROP TABLE leases");
    sql.exec(`CREATE TABLE leases (lease_id TEXT PRIMARY KEY, task_id TEXT NOT NULL UNIQUE,
      seq INTEGER NOT NULL, owner TEXT NOT NULL, lane TEXT NOT NULL, kind TEXT NOT NULL,
      attempts INTEGER NOT NULL, node_id TEXT NOT NULL, ${columns} expires_at INTEGER NOT NULL)`);
    const insert = (values: string) =>
      sql.exec(`INSERT INTO leases VALUES (${values}, ?)`, Date.now() + 60_000);
    if (columns === "") insert("'l-old', 't-old', 1, 'key_a', 'batch', 'transcribe', 1, 'n1'");
    else {
      insert("'l-gpu1', 't-gpu1', 1, 'key_a', 'batch', 'transcribe', 1, 'n1', 'gpu-1'");
      insert("'l-shared', 't-shared', 2, 'key_a', 'batch', 'transcribe', 1, 'n2', 'shared'");
    }
    createLeaseTables(sql);
    createLeaseTables(sql); // idempotent, as every constructor runs it
    body(new LeaseTable(sql));
  });
}

describe("lease table upgrade", () => {
  it("adds node_name and identity_id to a table from before node identities, keeping its rows", async () => {
    await withOldTable("lease-table-upgrade-v0", "", (leases) => {
      const old = leases.get("l-old");
      expect(old).toMatchObject({ task_id: "t-old", node_id: "n1", node_name: "", identity_id: "" });
      expect(isHeldBy(old!, SHARED_NODE)).toBe(true);
      expect(isHeldBy(old!, GPU_1)).toBe(false);
      expect(isHeldBy(old!, NAMED_SHARED)).toBe(false);
      leases.insert({
        lease_id: "l-new",
        task_id: "t-new",
        seq: 2,
        owner: "key_a",
        lane: "batch",
        kind: "transcribe",
        attempts: 1,
        node_id: "n2",
        node_name: "gpu-2",
        identity_id: GPU_2.id,
        expires_at: Date.now() + 60_000,
        served: 1,
        cancelled: 0,
      });
      const fresh = leases.get("l-new");
      expect(fresh).toMatchObject({ node_name: "gpu-2", identity_id: GPU_2.id });
      expect(isHeldBy(fresh!, GPU_2)).toBe(true);
      expect(isHeldBy(fresh!, { id: "node_other", name: "gpu-2" })).toBe(false); // the id decides
      expect(isHeldBy(fresh!, SHARED_NODE)).toBe(false);
    });
  });

  it("adds identity_id to a table with node_name; those leases go by their recorded name", async () => {
    await withOldTable("lease-table-upgrade-v1", "node_name TEXT NOT NULL DEFAULT '',", (leases) => {
      const perNode = leases.get("l-gpu1");
      expect(perNode).toMatchObject({ node_name: "gpu-1", identity_id: "" });
      expect(isHeldBy(perNode!, GPU_1)).toBe(true);
      expect(isHeldBy(perNode!, GPU_2)).toBe(false);
      expect(isHeldBy(perNode!, SHARED_NODE)).toBe(false);
      const shared = leases.get("l-shared");
      expect(isHeldBy(shared!, SHARED_NODE)).toBe(true);
      expect(isHeldBy(shared!, NAMED_SHARED)).toBe(false);
      expect(isHeldBy(shared!, GPU_1)).toBe(false);
    });
  });
});
