import { DurableObject } from "cloudflare:workers";
import { workerConfig } from "../../platform/config.ts";
import { leaseIdFor } from "../../platform/dispatch-routing.ts";
import type { NodeIdentity } from "../../platform/node-identity.ts";
import { changeTaskStatus, failUnlessEnded } from "../../platform/task-store.ts";
import type { LeaseAsk, NodeHealth } from "../../protocol/node.ts";
import {
  kindsOf,
  type Lane,
  type QueueStats,
  TASK_KINDS,
  type TaskKind,
  type WorkClass,
  workClassOf,
} from "../../protocol/task.ts";
import { CANCELLED_FAILURE } from "../../protocol/task-failure.ts";
import { createFairQueueTables, FairQueue, type WaitingTask } from "./fair-queue.ts";
import { compareTurns } from "./fair-rotation.ts";
import { FleetSlots } from "./fleet-slots.ts";
import { createLeaseTables, isHeldBy, type LeaseRow, LeaseTable } from "./lease-table.ts";
import { NodeTable } from "./node-table.ts";

export interface DispatchTask {
  task_id: string;
  owner: string;
  lane: Lane;
  kind: TaskKind;
}

interface Waiter {
  ask: LeaseAsk;
  /** The Worker's name for a wait it may withdraw (it waits on several schedulers at once). */
  waitId: string | undefined;
  node: NodeIdentity;
  resolve: (leases: LeaseRow[]) => void;
  timer: ReturnType<typeof setTimeout>;
}

/** How long finished tasks (late duplicates ignored) and silent nodes are remembered. */
const FINISHED_MEMORY_MS = 24 * 3600 * 1000;
/** The alarm prunes both at least this often, leases or not. */
const PRUNE_EVERY_MS = 3600 * 1000;

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
  private waiters: Waiter[] = [];
  private prunedAt = Date.now();
  /** The alarm set in storage (null: none; undefined: not read yet since the object started). */
  private alarmAt: number | null | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    // Synchronous SQL: the tables exist before the line and the leases are read back into memory.
    createFairQueueTables(sql);
    createLeaseTables(sql);
    this.leases = new LeaseTable(sql);
    this.queue = new FairQueue(sql, {
      running: (owner, workClass) => this.leases.runningOf(owner, workClass),
    });
    this.nodes = new NodeTable(sql);
  }

  /** Hands a task over for scheduling. Idempotent: a task already waiting, leased or finished is ignored. */
  async enqueue(task: DispatchTask): Promise<"queued" | "duplicate"> {
    if (this.queue.has(task.task_id) || this.leases.holdsTask(task.task_id)) return "duplicate";
    if (this.leases.isFinished(task.task_id)) return "duplicate";
    this.queue.push({ ...task, attempts: 0 });
    await this.serveWaiters();
    return "queued";
  }

  /**
   * Cancels a task (its synchronous caller went away; a client deleted it): the whole cancel happens
   * here, so the order of its steps is one object's. True when the task was failed `cancelled` now,
   * false when it had already ended.
   *
   * A leased task's lease is flagged **before** the stores are written: every reader of a flagged lease
   * fails the task itself (the node's next heartbeat or call, the lease's expiry), so a crash after the
   * flag still ends the task, and whoever sees the task failed finds its node already being told. A
   * waiting task leaves the line **after** the stores: a crash in between leaves a failed task in line,
   * which the lease that takes it drops. The task may be handed over or leased while the stores are
   * written; both are looked at again afterwards. It then counts as finished, so a late hand-off is ignored.
   */
  async cancel(taskId: string): Promise<boolean> {
    this.flagLease(taskId);
    const failedNow = await failUnlessEnded(this.env, taskId, CANCELLED_FAILURE);
    this.queue.remove(taskId);
    if (!this.flagLease(taskId)) this.leases.markFinished(taskId, Date.now());
    return failedNow;
  }

  /** Marks the lease holding a task cancelled; false when no lease holds it. */
  private flagLease(taskId: string): boolean {
    const lease = this.leases.byTask(taskId);
    if (lease) this.leases.cancel(lease.lease_id);
    return lease !== null;
  }

  /**
   * Grants up to `capacity` leases, waiting up to `wait_ms` for work when none is ready. `node` is the
   * authenticated node identity: its id and name are kept on each lease, and only it may use the lease.
   * `waitId` names the wait, so that `withdraw` can end it early. `home`: this is the node's home
   * partition (or the pool's one object), where its slots count under `auto`; elsewhere it only steals
   * work, so a node polling two partitions never offers its slots twice.
   */
  async lease(ask: LeaseAsk, node: NodeIdentity, waitId?: string, home = true): Promise<LeaseRow[]> {
    const now = Date.now();
    this.nodes.record(ask.node, now);
    const offered = home ? new Set(ask.kinds.map(workClassOf)) : [];
    for (const workClass of offered) {
      const held = this.leases.heldBy(ask.node.node_id, workClass);
      this.fleet.offer(workClass, ask.node.node_id, ask.capacity + held, now);
    }
    const granted = this.grant(ask, node);
    if (granted[0]) await this.scheduleAlarm(granted[0].expires_at);
    if (granted.length > 0 || ask.wait_ms <= 0) return granted;
    return new Promise((resolve) => {
      const waiter: Waiter = {
        ask,
        waitId,
        node,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve([]);
        }, ask.wait_ms),
      };
      this.waiters.push(waiter);
    });
  }

  /** Ends a wait early with no lease: the node that asked got work from another scheduler. */
  async withdraw(waitId: string): Promise<void> {
    const waiter = this.waiters.find((w) => w.waitId === waitId);
    if (!waiter) return;
    clearTimeout(waiter.timer);
    this.waiters = this.waiters.filter((w) => w !== waiter);
    waiter.resolve([]);
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
    const expiresAt = now + this.leaseTtlMs();
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

  /**
   * Ends a lease. `finished`: the task reached done or failed (its stores are already written).
   * `requeue`: the task goes back to its old place in line for another attempt. `unused`: the grant
   * never reached a node (it had its fill from another scheduler): back in place, the attempt not counted.
   */
  async release(leaseId: string, outcome: "finished" | "requeue" | "unused"): Promise<void> {
    const lease = this.leases.get(leaseId);
    if (!lease) return;
    this.leases.delete(lease);
    this.queue.runningChanged(lease.owner);
    if (outcome === "finished") this.leases.markFinished(lease.task_id, Date.now());
    else if (outcome === "unused") this.queue.push({ ...lease, attempts: lease.attempts - 1 }, lease.seq);
    else this.queue.push(lease, lease.seq);
    await this.serveWaiters();
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
    return {
      queued: this.queue.size(kinds),
      processing: this.leases.count(workClass),
      position: taskId ? this.queue.position(taskId, kinds, Date.now()) : null,
      concurrency: this.concurrency(workClass),
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

  /**
   * Takes back expired leases: another attempt, or failure once the attempts are spent. A lease can
   * outlive its task (the node's result was stored, then the release was lost to a crash): such a task
   * has ended and is only forgotten here, never run again.
   */
  override async alarm(): Promise<void> {
    const now = Date.now();
    this.alarmAt = null;
    for (const lease of this.leases.expired(now)) await this.takeBack(lease, now);
    if (now - this.prunedAt >= PRUNE_EVERY_MS) {
      this.leases.pruneFinished(now - FINISHED_MEMORY_MS);
      this.nodes.prune(now - FINISHED_MEMORY_MS);
      this.prunedAt = now;
    }
    await this.scheduleAlarm();
    await this.serveWaiters();
  }

  private async takeBack(lease: LeaseRow, now: number): Promise<void> {
    const { maxTaskAttempts } = workerConfig(this.env);
    if (lease.cancelled || lease.attempts >= maxTaskAttempts) {
      // Cancelled: its node died before hearing of the cancel, the task stays failed. Out of attempts:
      // node_lost. Either way only unless the task already ended (its result wins).
      await failUnlessEnded(
        this.env,
        lease.task_id,
        lease.cancelled
          ? CANCELLED_FAILURE
          : {
              code: "node_lost",
              message: `task failed after ${lease.attempts} attempts: the inference node stopped responding (lease expired)`,
            },
      );
      this.leases.delete(lease);
      this.queue.runningChanged(lease.owner);
      this.leases.markFinished(lease.task_id, now);
      return;
    }
    // Back in line first, so a call on the expired lease meanwhile gets 410; then the stores, whose
    // write is refused when the task has already ended.
    this.leases.delete(lease);
    this.queue.push(lease, lease.seq);
    this.queue.runningChanged(lease.owner);
    if (!(await changeTaskStatus(this.env, lease.task_id, { status: "queued" }))) {
      this.queue.remove(lease.task_id);
      this.leases.markFinished(lease.task_id, now);
    }
  }

  /** Grants up to the ask's capacity, each task only while its work class has a free slot. */
  private grant(ask: LeaseAsk, node: NodeIdentity): LeaseRow[] {
    const granted: LeaseRow[] = [];
    const expiresAt = Date.now() + this.leaseTtlMs();
    while (granted.length < ask.capacity) {
      const task = this.nextTask(ask.kinds);
      if (!task) break;
      const served = this.queue.take(task);
      const lease: LeaseRow = {
        ...task,
        lease_id: leaseIdFor(this.ctx.id.toString()),
        attempts: task.attempts + 1,
        node_id: ask.node.node_id,
        node_name: node.name,
        identity_id: node.id,
        expires_at: expiresAt,
        served,
        cancelled: 0,
      };
      this.leases.insert(lease);
      this.queue.runningChanged(task.owner);
      granted.push(lease);
    }
    return granted;
  }

  /**
   * The next task for a node serving `kinds`: each work class with a free slot applies the grant rule
   * to its own slots; a node serving both classes gets the earlier lane, then the rule's pick.
   */
  private nextTask(kinds: readonly TaskKind[]): WaitingTask | null {
    const classes = [...new Set(kinds.map(workClassOf))].filter((workClass) => this.hasFreeSlot(workClass));
    const picks = classes.flatMap((workClass) => {
      const pick = this.queue.peek(kinds.filter((kind) => workClassOf(kind) === workClass));
      return pick ? [pick] : [];
    });
    picks.sort((a, b) => a.laneIndex - b.laneIndex || compareTurns(a.turn, b.turn));
    return picks[0]?.task ?? null;
  }

  /**
   * Wakes long-polling nodes, oldest first, while there is work and room for it. A waiter is tried only
   * when some kind it serves has a task waiting in a class with a free slot, and the walk stops once no
   * class has both, so a parked fleet costs nothing while the slots are full or the line is empty.
   */
  private async serveWaiters(): Promise<void> {
    let expiry: number | undefined;
    for (const waiter of [...this.waiters]) {
      if (!this.canGrantAny()) break;
      if (!this.canGrant(waiter.ask.kinds)) continue;
      const granted = this.grant(waiter.ask, waiter.node);
      if (granted.length === 0) continue;
      expiry = granted[0]?.expires_at;
      clearTimeout(waiter.timer);
      this.waiters = this.waiters.filter((w) => w !== waiter);
      waiter.resolve(granted);
    }
    if (expiry !== undefined) await this.scheduleAlarm(expiry);
  }

  /**
   * Keeps the alarm at or before the next lease expiry and the next prune. Only ever moved earlier here
   * (an alarm that comes too early finds nothing to take back and sets the next one), so a grant or a
   * heartbeat, whose deadline is later than the alarm already set, costs no storage call. `expiry`: a
   * deadline just written; without it the earliest one is read.
   */
  private async scheduleAlarm(expiry?: number): Promise<void> {
    const next = Math.min(
      expiry ?? this.leases.nextExpiry() ?? Number.POSITIVE_INFINITY,
      this.prunedAt + PRUNE_EVERY_MS,
    );
    if (this.alarmAt === undefined) this.alarmAt = await this.ctx.storage.getAlarm();
    if (this.alarmAt !== null && this.alarmAt <= next) return;
    await this.ctx.storage.setAlarm(next);
    this.alarmAt = next;
  }

  private hasFreeSlot(workClass: WorkClass): boolean {
    if (this.boundByAsk(workClass)) return true;
    return this.leases.count(workClass) < this.concurrency(workClass);
  }

  /**
   * A speech partition (DISPATCHER_PARTITIONS > 1, which needs `auto`) has no cap of its own: a node asks
   * for its own free slots only and one ask gets one grant, so the ask's capacity is the bound, and the
   * deployment runs at most the slots its nodes offer. Its nodes' leases are spread over partitions, so a
   * partition's own count against its home nodes' slots would mean nothing.
   */
  private boundByAsk(workClass: WorkClass): boolean {
    return workClass === "speech" && workerConfig(this.env).dispatcherPartitions > 1;
  }

  /** Whether a node serving `kinds` would get a task now: one waits in a class with a free slot. */
  private canGrant(kinds: readonly TaskKind[]): boolean {
    return kinds.some((kind) => this.queue.size([kind]) > 0 && this.hasFreeSlot(workClassOf(kind)));
  }

  private canGrantAny(): boolean {
    return this.canGrant(TASK_KINDS);
  }

  /** The class's cap: the configured number, or with `auto` the slots its live nodes offer. */
  private concurrency(workClass: WorkClass): number {
    const config = workerConfig(this.env);
    const cap = workClass === "speech" ? config.maxConcurrentTranscribeJobs : config.maxConcurrentContentJobs;
    if (cap !== "auto") return cap;
    const now = Date.now();
    return this.fleet.total(workClass, now, now - config.nodeStaleMs);
  }

  private leaseTtlMs(): number {
    return workerConfig(this.env).leaseTtlMs;
  }
}
