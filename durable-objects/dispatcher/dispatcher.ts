import { DurableObject } from "cloudflare:workers";
import { workerConfig } from "../../platform/config.ts";
import type { NodeIdentity } from "../../platform/node-identity.ts";
import type { LeaseAsk, NodeHealth } from "../../protocol/node.ts";
import { kindsOf, type Lane, type QueueStats, type TaskKind, workClassOf } from "../../protocol/task.ts";
import { AlarmSchedule } from "./alarm-schedule.ts";
import { createFairQueueTables, FairQueue } from "./fair-queue.ts";
import { FleetSlots } from "./fleet-slots.ts";
import { GrantPolicy } from "./grant-policy.ts";
import { cancelTask, type DispatchTables, endLease, type LeaseOutcome, takeBack } from "./lease-returns.ts";
import { createLeaseTables, isHeldBy, type LeaseRow, LeaseTable } from "./lease-table.ts";
import { NodeTable } from "./node-table.ts";
import { type ParkedAnswer, ParkedPolls } from "./parked-polls.ts";
import { type PoolLink, poolLinkFor } from "./pool-link.ts";

export interface DispatchTask {
  task_id: string;
  owner: string;
  lane: Lane;
  kind: TaskKind;
}

/** How long finished tasks (late duplicates ignored) and silent nodes are remembered. */
const FINISHED_MEMORY_MS = 24 * 3600 * 1000;
/** The alarm prunes both at least this often, leases or not. */
const PRUNE_EVERY_MS = 3600 * 1000;
const SPEECH_KINDS: readonly TaskKind[] = kindsOf("speech");

/**
 * The scheduler: one object per work class and model pool, or per key-affine partition of a speech pool
 * (platform/dispatch-routing.ts). It keeps the fair waiting line, hands out leases up to
 * the concurrency cap, takes back tasks whose lease ran out (the node died) and fails them after
 * MAX_TASK_ATTEMPTS. Nodes waiting for work are held here (long poll) and woken when work arrives.
 */
export class Dispatcher extends DurableObject<Env> {
  private readonly queue: FairQueue;
  private readonly leases: LeaseTable;
  private readonly nodes: NodeTable;
  private readonly fleet = new FleetSlots();
  /** A speech partition's link to its pool's root (slot budgets, the pool's figures); null elsewhere. */
  private readonly pool: PoolLink | null;
  private readonly grants: GrantPolicy;
  private readonly parked = new ParkedPolls();
  private readonly alarms: AlarmSchedule;
  /** The line and the leases, as the lease-returns.ts functions take them. */
  private readonly tables: DispatchTables;
  private prunedAt = Date.now();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    // Synchronous SQL: the tables exist (an older object's rebuilt, all or nothing) before the line and
    // the leases are read back into memory.
    ctx.storage.transactionSync(() => {
      createFairQueueTables(sql);
      createLeaseTables(sql);
    });
    this.leases = new LeaseTable(sql);
    this.queue = new FairQueue(sql, {
      running: (owner, workClass) => this.leases.runningOf(owner, workClass),
    });
    this.nodes = new NodeTable(sql);
    this.tables = { queue: this.queue, leases: this.leases };
    this.pool = poolLinkFor(env, ctx.id.name, {
      line: this.queue,
      used: () => this.leases.count("speech"),
      slots: () => this.grants.concurrency("speech"),
      parked: () => this.parked.forwardable,
    });
    this.grants = new GrantPolicy({
      queue: this.queue,
      leases: this.leases,
      fleet: this.fleet,
      pool: this.pool,
      objectId: ctx.id.toString(),
      config: () => workerConfig(this.env),
    });
    this.alarms = new AlarmSchedule(ctx.storage);
  }

  /** Hands a task over for scheduling. Idempotent: a task already waiting, leased or finished is ignored. */
  async enqueue(task: DispatchTask): Promise<"queued" | "duplicate"> {
    if (this.queue.has(task.task_id) || this.leases.holdsTask(task.task_id)) return "duplicate";
    if (this.leases.isFinished(task.task_id)) return "duplicate";
    this.queue.push({ ...task, attempts: 0 });
    await this.serveWaiters();
    await this.forwardUnserved();
    await this.syncPool();
    return "queued";
  }

  /**
   * Cancels a task (its synchronous caller went away; a client deleted it), in the order lease-returns.ts
   * `cancelTask` explains. True when the task was failed `cancelled` now, false when it had already ended.
   */
  async cancel(taskId: string): Promise<boolean> {
    const failedNow = await cancelTask(this.env, this.tables, taskId);
    await this.syncPool();
    return failedNow;
  }

  /**
   * Grants up to `capacity` leases, waiting up to `wait_ms` for work when none is ready. `node` is the
   * authenticated node identity: its id and name are kept on each lease, and only it may use the lease.
   * `waitId` names the wait, so that `withdraw` can end it early. `home`: this is the node's home
   * partition (or the pool's one object), where its slots count under `auto`; elsewhere it only steals
   * work, so a node stealing from another partition never offers its slots twice.
   */
  async lease(ask: LeaseAsk, node: NodeIdentity, waitId?: string, home = true): Promise<LeaseRow[]> {
    const granted = await this.grantNow(ask, node, home);
    if (granted.length > 0 || ask.wait_ms <= 0) return granted;
    return (await this.parked.park(ask, node, waitId)).leases;
  }

  /**
   * A node's ask at its home partition (worker/tasks/lease-ask.ts): `lease`, except that with nothing to
   * grant here it is sent to steal (`steal`) from the busier of the partitions it `sampled` that has work
   * waiting, per the pool's figures, instead of parking; parked, another partition may send it the same
   * way (`forward`). In an unpartitioned scheduler, `lease`.
   */
  async leaseOrSteal(
    ask: LeaseAsk,
    node: NodeIdentity,
    sampled: number[],
    waitId?: string,
  ): Promise<ParkedAnswer> {
    const granted = await this.grantNow(ask, node, true);
    if (granted.length > 0) return { leases: granted, steal: null };
    const steal = (await this.pool?.stealFrom(sampled, Date.now())) ?? null;
    if (steal !== null || ask.wait_ms <= 0) return { leases: [], steal };
    const answer = this.parked.park(ask, node, waitId, true);
    // The summary counts the poll now parked: forwarding partitions read it.
    await this.syncPool();
    return answer;
  }

  /**
   * Sends a poll parked here to steal from partition `from`, which has work none of its own could take;
   * false when none is parked here.
   */
  async forward(from: number): Promise<boolean> {
    if (!this.parked.forward(from)) return false;
    await this.syncPool();
    return true;
  }

  /** Records the asking node, offers its slots at home, and grants what is ready (none parks). */
  private async grantNow(ask: LeaseAsk, node: NodeIdentity, home: boolean): Promise<LeaseRow[]> {
    const now = Date.now();
    this.nodes.record(ask.node, now);
    const offered = home ? new Set(ask.kinds.map(workClassOf)) : [];
    for (const workClass of offered) {
      const held = this.leases.heldBy(ask.node.node_id, workClass);
      this.fleet.offer(workClass, ask.node.node_id, ask.capacity + held, now);
    }
    await this.pool?.reserve(Date.now());
    const granted = this.grants.grant(ask, node);
    if (granted[0]) await this.scheduleAlarm(granted[0].expires_at);
    await this.syncPool();
    return granted;
  }

  /** Ends a wait early with no lease: the node that asked got work from another scheduler. */
  async withdraw(waitId: string): Promise<void> {
    this.parked.withdraw(waitId);
  }

  /**
   * Extends a live lease held by `holder`; null when it is gone (expired and handed back, or released)
   * or held by another node identity, which must not learn that it exists. A cancelled lease comes
   * back with `cancelled: 1`; the Worker then ends it.
   */
  async heartbeat(leaseId: string, health: NodeHealth, holder: NodeIdentity): Promise<LeaseRow | null> {
    const [lease] = await this.heartbeatNode([leaseId], health, holder);
    return lease ?? null;
  }

  /**
   * One node's heartbeat for all its leases: the node is recorded once and the alarm moved once,
   * however many leases it holds. Each answer is as `heartbeat` gives it, in the order asked.
   */
  async heartbeatNode(
    leaseIds: string[],
    health: NodeHealth,
    holder: NodeIdentity,
  ): Promise<(LeaseRow | null)[]> {
    const now = Date.now();
    this.nodes.record(health, now);
    this.fleet.seen(health.node_id, now);
    const expiresAt = now + workerConfig(this.env).leaseTtlMs;
    const answers = leaseIds.map((leaseId) => {
      const lease = this.leases.get(leaseId);
      if (!lease || !isHeldBy(lease, holder)) return null;
      this.leases.extend(leaseId, expiresAt);
      return { ...lease, expires_at: expiresAt };
    });
    if (answers.some((lease) => lease !== null)) await this.scheduleAlarm(expiresAt);
    return answers;
  }

  /**
   * Of these tasks, those this object neither holds in line or under lease nor has seen finish: the
   * orphan sweep hands only those over again.
   */
  async unknownTasks(taskIds: string[]): Promise<string[]> {
    return taskIds.filter(
      (taskId) =>
        !this.queue.has(taskId) && !this.leases.holdsTask(taskId) && !this.leases.isFinished(taskId),
    );
  }

  async lookup(leaseId: string): Promise<LeaseRow | null> {
    return this.leases.get(leaseId);
  }

  /** Ends a lease: `finished`, `requeue` or `unused`, as lease-returns.ts `endLease` says. */
  async release(leaseId: string, outcome: LeaseOutcome): Promise<void> {
    const lease = this.leases.get(leaseId);
    if (!lease) return;
    endLease(this.tables, lease, outcome);
    await this.serveWaiters();
    await this.syncPool();
  }

  /**
   * The line as a task sees it: the waiting and running tasks that share its capacity (speech or
   * render), its place among them, and that capacity. Without a task (or for one no longer waiting),
   * the speech line.
   */
  async stats(taskId?: string): Promise<QueueStats> {
    const kind = taskId ? this.queue.kindOf(taskId) : null;
    const workClass = kind ? workClassOf(kind) : "speech";
    const kinds = kindsOf(workClass);
    if (this.pool && workClass === "speech") return this.pool.stats(taskId, Date.now());
    return {
      queued: this.queue.size(kinds),
      processing: this.leases.count(workClass),
      position: taskId ? this.queue.position(taskId, kinds, Date.now()) : null,
      concurrency: this.grants.concurrency(workClass),
    };
  }

  /** Keeps a node's report without a lease ask (it serves no pool the registry lists; see askSchedulers). */
  async noteNode(health: NodeHealth): Promise<void> {
    this.nodes.record(health, Date.now());
  }

  /** Nodes heard from recently, freshest first. */
  async liveNodes(): Promise<NodeHealth[]> {
    return this.nodes.live(Date.now() - workerConfig(this.env).nodeStaleMs);
  }

  /** Takes back expired leases (lease-returns.ts `takeBack`), prunes, and sets the next alarm. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    this.alarms.fired();
    for (const lease of this.leases.expired(now)) await takeBack(this.env, this.tables, lease, now);
    if (now - this.prunedAt >= PRUNE_EVERY_MS) {
      this.leases.pruneFinished(now - FINISHED_MEMORY_MS);
      this.nodes.prune(now - FINISHED_MEMORY_MS);
      this.prunedAt = now;
    }
    await this.pool?.reserve(Date.now());
    await this.serveWaiters();
    if (this.pool?.forwardDue(Date.now())) await this.forwardUnserved();
    await this.syncPool();
    await this.scheduleAlarm();
  }

  /** A partition's speech work no poll of its own could take goes to one parked elsewhere (pool-link.ts `forward`). */
  private async forwardUnserved(): Promise<void> {
    await this.pool?.forward(Date.now(), this.grants.canGrant(SPEECH_KINDS));
  }

  /** Wakes long-polling nodes while there is work and room for it (parked-polls.ts `serve`). */
  private async serveWaiters(): Promise<void> {
    if (this.parked.size > 0) await this.pool?.reserve(Date.now());
    const expiry = this.parked.serve(this.grants);
    if (expiry !== undefined) await this.scheduleAlarm(expiry);
  }

  /**
   * Keeps the alarm at or before the next lease expiry, the next prune and the pool link's next call.
   * `expiry`: a deadline just written; without it the earliest one is read.
   */
  private async scheduleAlarm(expiry?: number): Promise<void> {
    const next = Math.min(
      expiry ?? this.leases.nextExpiry() ?? Number.POSITIVE_INFINITY,
      this.prunedAt + PRUNE_EVERY_MS,
      this.pool?.deadline() ?? Number.POSITIVE_INFINITY,
    );
    await this.alarms.keepBy(next);
  }

  /** After a change, a partition settles its budget and pushes its summary (pool-link.ts `sync`). */
  private async syncPool(): Promise<void> {
    if (!this.pool) return;
    await this.pool.sync(Date.now());
    await this.scheduleAlarm();
  }
}
