import { DurableObject } from "cloudflare:workers";
import { workerConfig } from "../../platform/config.ts";
import { BudgetLedger, createBudgetTables, type Holding } from "./budget-ledger.ts";
import { mergeSummaries, type PartitionSummary, type PoolSnapshot } from "./pool-figures.ts";

/** A partition holds its slots this many lease TTLs unless it renews them (it renews at half). */
export const BUDGET_TTL_LEASES = 2;

/**
 * The root of a partitioned speech pool (DISPATCHER_PARTITIONS > 1): one object per pool, beside its
 * partitions. With a numeric MAX_CONCURRENT_TRANSCRIBE_JOBS it leases the cap to the partitions in slot
 * budgets (budget-ledger.ts), so the deployment never runs more speech tasks at once; and it merges the
 * partitions' summaries into the pool's queue figures (pool-figures.ts). The partitions call it, it
 * never calls them: a grant costs a partition no call while it holds a free slot, and the root O(1).
 */
export class PoolRoot extends DurableObject<Env> {
  private readonly ledger: BudgetLedger;
  private readonly summaries = new Map<number, PartitionSummary>();
  private snapshot: PoolSnapshot | null = null;
  /** The alarm set in storage (null: none; undefined: not read yet since the object started). */
  private alarmAt: number | null | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    createBudgetTables(sql);
    sql.exec("CREATE TABLE IF NOT EXISTS summaries (partition INTEGER PRIMARY KEY, summary TEXT NOT NULL)");
    this.ledger = new BudgetLedger(sql);
    for (const row of sql.exec<{ partition: number; summary: string }>("SELECT * FROM summaries"))
      this.summaries.set(row.partition, JSON.parse(row.summary));
  }

  /** Up to `want` more slots of the cap for `partition` (0: renews only); what it holds now. */
  async acquire(partition: number, want: number): Promise<Holding> {
    const cap = workerConfig(this.env).maxConcurrentTranscribeJobs;
    const now = Date.now();
    const holding = this.ledger.acquire(partition, want, cap === "auto" ? 0 : cap, now, this.ttlMs());
    await this.scheduleAlarm();
    return holding;
  }

  /** Takes `slots` back from `partition` (its leases ended and its line needs them no more). */
  async release(partition: number, slots: number): Promise<Holding> {
    const holding = this.ledger.release(partition, slots, Date.now(), this.ttlMs());
    await this.scheduleAlarm();
    return holding;
  }

  /** Keeps `partition`'s summary and answers with the pool's figures as they now stand. */
  async report(partition: number, summary: PartitionSummary): Promise<PoolSnapshot> {
    this.summaries.set(partition, summary);
    this.ctx.storage.sql.exec(
      `INSERT INTO summaries (partition, summary) VALUES (?, ?)
       ON CONFLICT (partition) DO UPDATE SET summary = excluded.summary`,
      partition,
      JSON.stringify(summary),
    );
    this.snapshot = null;
    return this.figures();
  }

  /**
   * The pool's figures, merged once per change of a summary. Only the partitions of the current
   * DISPATCHER_PARTITIONS count: a summary left by a partition no longer used would never change again.
   */
  async figures(): Promise<PoolSnapshot> {
    if (this.snapshot) return this.snapshot;
    const partitions = workerConfig(this.env).dispatcherPartitions;
    const current = new Map([...this.summaries].filter(([partition]) => partition < partitions));
    this.snapshot = mergeSummaries(current, Date.now());
    return this.snapshot;
  }

  /** Slots held by all partitions together. */
  async held(): Promise<number> {
    return this.ledger.total();
  }

  /** Reclaims the budgets of partitions that stopped renewing them. */
  override async alarm(): Promise<void> {
    this.alarmAt = null;
    this.ledger.reclaim(Date.now());
    await this.scheduleAlarm();
  }

  /** Keeps the alarm at or before the earliest expiry (only moved earlier; an early alarm sets the next). */
  private async scheduleAlarm(): Promise<void> {
    const next = this.ledger.nextExpiry();
    if (next === null) return;
    if (this.alarmAt === undefined) this.alarmAt = await this.ctx.storage.getAlarm();
    if (this.alarmAt !== null && this.alarmAt <= next) return;
    await this.ctx.storage.setAlarm(next);
    this.alarmAt = next;
  }

  private ttlMs(): number {
    return BUDGET_TTL_LEASES * workerConfig(this.env).leaseTtlMs;
  }
}
