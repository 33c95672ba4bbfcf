/**
 * The real PoolRoot with its storage counted: the `root_job` case calls it as a partition does under a
 * numeric cap (bench/scheduler-worker/worker.ts).
 */
import { PoolRoot } from "../../durable-objects/dispatcher/pool-root.ts";
import { countStatements, type StorageCounts, zeroCounts } from "./counting-storage.ts";

export class BenchPoolRoot extends PoolRoot {
  private readonly counts: StorageCounts;
  private readonly settle: () => void;

  constructor(ctx: DurableObjectState, env: Env) {
    const counts = zeroCounts();
    const settle = countStatements(ctx, counts);
    super(ctx, env);
    this.counts = counts;
    this.settle = settle;
  }

  /** What storage was asked since the last call. */
  async takeCounts(): Promise<StorageCounts> {
    this.settle();
    const taken = { ...this.counts };
    Object.assign(this.counts, zeroCounts());
    return taken;
  }
}
