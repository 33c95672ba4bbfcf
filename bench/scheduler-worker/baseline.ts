/**
 * The reference of the scheduler bench: a trivial Durable Object that does one storage write per call,
 * called over RPC exactly like the Dispatcher.
 */
import { DurableObject } from "cloudflare:workers";
import { countStatements, type StorageCounts, zeroCounts } from "./counting-storage.ts";

export class BenchBaseline extends DurableObject<Env> {
  private readonly counts: StorageCounts;
  private readonly settle: () => void;

  constructor(ctx: DurableObjectState, env: Env) {
    const counts = zeroCounts();
    const settle = countStatements(ctx, counts);
    super(ctx, env);
    this.counts = counts;
    this.settle = settle;
    this.ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS kv (k INTEGER PRIMARY KEY, v INTEGER NOT NULL)");
  }

  /** One write: `INSERT OR REPLACE` of one row out of a thousand. */
  async write(i: number): Promise<void> {
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)", i % 1000, i);
  }

  async takeCounts(): Promise<StorageCounts> {
    this.settle();
    const taken = { ...this.counts };
    Object.assign(this.counts, zeroCounts());
    return taken;
  }
}
