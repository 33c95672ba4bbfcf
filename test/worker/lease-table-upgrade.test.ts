/**
 * Leases stored by a Dispatcher from before node identities (no node_name column) survive the upgrade:
 * the column is added, the held lease keeps working and reads as taken by an unknown ('') node.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createLeaseTables, LeaseTable } from "../../durable-objects/dispatcher/lease-table.ts";

describe("lease table upgrade", () => {
  it("adds node_name to an existing leases table, keeping its rows", async () => {
    const stub = env.DISPATCHER.get(env.DISPATCHER.idFromName("lease-table-upgrade"));
    await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      sql.exec("DROP TABLE leases");
      sql.exec(`CREATE TABLE leases (lease_id TEXT PRIMARY KEY, task_id TEXT NOT NULL UNIQUE,
        seq INTEGER NOT NULL, owner TEXT NOT NULL, lane TEXT NOT NULL, kind TEXT NOT NULL,
        attempts INTEGER NOT NULL, node_id TEXT NOT NULL, expires_at INTEGER NOT NULL)`);
      sql.exec(
        "INSERT INTO leases VALUES ('l-old', 't-old', 1, 'key_a', 'batch', 'transcribe', 1, 'n1', ?)",
        Date.now() + 60_000,
      );
      createLeaseTables(sql);
      createLeaseTables(sql); // idempotent, as every constructor runs it
      const leases = new LeaseTable(sql);
      expect(leases.get("l-old")).toMatchObject({ task_id: "t-old", node_id: "n1", node_name: "" });
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
        expires_at: Date.now() + 60_000,
        cancelled: 0,
      });
      expect(leases.get("l-new")).toMatchObject({ node_name: "gpu-2" });
    });
  });
});
