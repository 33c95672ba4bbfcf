/**
 * The real Dispatcher, with its storage counted and a bench API beside its own: `seed` lays out a fleet
 * (waiting tasks over keys, running leases over nodes, parked long-polls) straight in SQL; the bench
 * Worker then calls the Dispatcher's own methods over RPC, as the platform's Worker does.
 */
import { Dispatcher } from "../../durable-objects/dispatcher/dispatcher.ts";
import { type Fleet, identity, node } from "./bench-api.ts";
import { countStatements, type StorageCounts, zeroCounts } from "./counting-storage.ts";

export class BenchDispatcher extends Dispatcher {
  private readonly counts: StorageCounts;
  private readonly settle: () => void;

  constructor(ctx: DurableObjectState, env: Env) {
    const counts = zeroCounts();
    const settle = countStatements(ctx, counts);
    super(ctx, env);
    this.counts = counts;
    this.settle = settle;
    // The fleet's concurrency cap, for this object only (workerConfig parses each env object once).
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS bench_config (cap INTEGER NOT NULL)");
    const cap = ctx.storage.sql.exec<{ cap: number }>("SELECT cap FROM bench_config").toArray()[0]?.cap;
    if (cap !== undefined)
      Object.assign(this, { env: { ...env, MAX_CONCURRENT_TRANSCRIBE_JOBS: String(cap) } });
  }

  /**
   * Writes the fleet's tasks, leases and nodes, then restarts the object (`ctx.abort`, which ends this
   * call with an error) so the Dispatcher reads them back into memory as it does after any restart.
   */
  async seed(fleet: Fleet): Promise<void> {
    const sql = this.ctx.storage.sql;
    sql.exec("INSERT INTO bench_config (cap) VALUES (?)", fleet.cap);
    const expiresAt = Date.now() + 3_600_000;
    this.ctx.storage.transactionSync(() => {
      for (let i = 0; i < fleet.waiting; i++)
        sql.exec(
          "INSERT INTO waiting (task_id, owner, lane, kind, attempts) VALUES (?, ?, 'batch', 'transcribe', 0)",
          `w-${i}`,
          `key-${i % fleet.keys}`,
        );
      for (let i = 0; i < fleet.leases; i++) {
        const n = i % fleet.nodes;
        sql.exec(
          `INSERT INTO leases (lease_id, task_id, seq, owner, lane, kind, attempts, node_id, node_name, identity_id, expires_at)
           VALUES (?, ?, ?, ?, 'batch', 'transcribe', 1, ?, ?, ?, ?)`,
          `l-${i}`,
          `r-${i}`,
          -1 - i,
          `key-${i % fleet.keys}`,
          `node-${n}`,
          `node-${n}`,
          `id-node-${n}`,
          expiresAt,
        );
      }
      for (let i = 0; i < fleet.nodes; i++)
        sql.exec(
          "INSERT OR REPLACE INTO nodes (node_id, health, seen_at) VALUES (?, ?, ?)",
          `node-${i}`,
          JSON.stringify(node(i)),
          Date.now(),
        );
    });
    if (fleet.leases > 0) await this.ctx.storage.setAlarm(expiresAt);
    // The writes must be durable first: an abort drops what is not.
    await this.ctx.storage.sync();
    this.ctx.abort("seeded: read the fleet back");
  }

  /** Parks the fleet's long-polls: real `lease()` calls left waiting (there is nothing they can get). */
  async park(fleet: Fleet): Promise<void> {
    for (let i = 0; i < fleet.parked; i++)
      void this.lease({ node: node(i), capacity: 1, wait_ms: 600_000, kinds: ["transcribe"] }, identity(i));
  }

  /** What storage was asked since the last call (the operations themselves come as the Dispatcher's own RPCs). */
  async takeCounts(): Promise<StorageCounts> {
    this.settle();
    const taken = { ...this.counts };
    Object.assign(this.counts, zeroCounts());
    return taken;
  }

  /** Waiting, leased and finished tasks, to check a run lost or doubled nothing. */
  async census(): Promise<{ waiting: number; leased: number; finished: number; parked: number }> {
    const count = (table: string) =>
      this.ctx.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n;
    return {
      waiting: count("waiting"),
      leased: count("leases"),
      finished: count("finished"),
      parked: (this as unknown as { parked: { size: number } }).parked.size,
    };
  }
}
