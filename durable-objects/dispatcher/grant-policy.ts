import type { WorkerConfig } from "../../platform/config.ts";
import { leaseIdFor } from "../../platform/dispatch-routing.ts";
import type { NodeIdentity } from "../../platform/node-identity.ts";
import type { LeaseAsk } from "../../protocol/node.ts";
import { TASK_KINDS, type TaskKind, type WorkClass, workClassOf } from "../../protocol/task.ts";
import type { FairQueue, WaitingTask } from "./fair-queue.ts";
import { compareTurns } from "./fair-rotation.ts";
import type { FleetSlots } from "./fleet-slots.ts";
import type { LeaseRow, LeaseTable } from "./lease-table.ts";
import type { PoolLink } from "./pool-link.ts";

/** What the grant reads and writes of its Dispatcher. */
export interface GrantScope {
  queue: FairQueue;
  leases: LeaseTable;
  fleet: FleetSlots;
  pool: PoolLink | null;
  /** The Dispatcher's id, the prefix of its lease ids. */
  objectId: string;
  /** Read at each call: the config is the object's env's (the scheduler bench sets its own cap). */
  config: () => WorkerConfig;
}

/**
 * Which tasks a lease ask gets: the next task by lane and the fair grant rule, each only while its work
 * class has a free slot under the class's concurrency cap.
 */
export class GrantPolicy {
  constructor(private readonly scope: GrantScope) {}

  /** Grants up to the ask's capacity, each task only while its work class has a free slot. */
  grant(ask: LeaseAsk, node: NodeIdentity): LeaseRow[] {
    const { queue, leases, pool } = this.scope;
    const granted: LeaseRow[] = [];
    const expiresAt = Date.now() + this.scope.config().leaseTtlMs;
    while (granted.length < ask.capacity) {
      const task = this.nextTask(ask.kinds);
      if (!task) break;
      const served = queue.take(task);
      pool?.served(task.owner, Date.now());
      const lease: LeaseRow = {
        ...task,
        lease_id: leaseIdFor(this.scope.objectId),
        attempts: task.attempts + 1,
        node_id: ask.node.node_id,
        node_name: node.name,
        identity_id: node.id,
        expires_at: expiresAt,
        served,
        cancelled: 0,
      };
      leases.insert(lease);
      queue.runningChanged(task.owner);
      granted.push(lease);
    }
    return granted;
  }

  /** Whether a node serving `kinds` would get a task now: one waits in a class with a free slot. */
  canGrant(kinds: readonly TaskKind[]): boolean {
    return kinds.some((kind) => this.scope.queue.size([kind]) > 0 && this.hasFreeSlot(workClassOf(kind)));
  }

  canGrantAny(): boolean {
    return this.canGrant(TASK_KINDS);
  }

  /** The class's cap: the configured number, or with `auto` the slots its live nodes offer. */
  concurrency(workClass: WorkClass): number {
    const config = this.scope.config();
    const cap = workClass === "speech" ? config.maxConcurrentTranscribeJobs : config.maxConcurrentContentJobs;
    if (cap !== "auto") return cap;
    const now = Date.now();
    return this.scope.fleet.total(workClass, now, now - config.nodeStaleMs);
  }

  /**
   * The next task for a node serving `kinds`: each work class with a free slot applies the grant rule
   * to its own slots; a node serving both classes gets the earlier lane, then the rule's pick.
   */
  private nextTask(kinds: readonly TaskKind[]): WaitingTask | null {
    const classes = [...new Set(kinds.map(workClassOf))].filter((workClass) => this.hasFreeSlot(workClass));
    const picks = classes.flatMap((workClass) => {
      const pick = this.scope.queue.peek(kinds.filter((kind) => workClassOf(kind) === workClass));
      return pick ? [pick] : [];
    });
    picks.sort((a, b) => a.laneIndex - b.laneIndex || compareTurns(a.turn, b.turn));
    return picks[0]?.task ?? null;
  }

  /**
   * A speech partition has no cap of its own: under a numeric cap it grants on a slot of the root's budget;
   * under `auto` one ask gets one grant, so the ask's capacity (the node's free slots) is the bound.
   */
  private hasFreeSlot(workClass: WorkClass): boolean {
    if (this.scope.pool && workClass === "speech") return this.scope.pool.covers(Date.now());
    return this.scope.leases.count(workClass) < this.concurrency(workClass);
  }
}
