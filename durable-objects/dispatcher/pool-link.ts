import { workerConfig } from "../../platform/config.ts";
import { parseSchedulerName } from "../../platform/dispatch-routing.ts";
import { dispatcher, poolRoot } from "../../platform/stubs.ts";
import { kindsOf, LANES, type Lane, type QueueStats, type TaskKind } from "../../protocol/task.ts";
import type { Holding } from "./budget-ledger.ts";
import type { KeyLine } from "./fair-rotation.ts";
import {
  busierOf,
  type PartitionSummary,
  type PoolSnapshot,
  parkedElsewhere,
  placeInPool,
  poolOwner,
} from "./pool-figures.ts";
import { BUDGET_TTL_LEASES } from "./pool-root.ts";

/** A partition pushes its summary at most this often (and only when it changed). */
export const PUSH_EVERY_MS = 1000;
/** A partition refused a slot (the cap held elsewhere) asks again this much later while its tasks wait. */
export const RETRY_MS = 1000;
/** A partition reads the pool's figures again once its copy is this old: with the push, at most 2 s behind. */
export const PULL_EVERY_MS = 1000;

/** The root's calls a partition makes (a PoolRoot stub). */
export interface RootCalls {
  acquire(partition: number, want: number): Promise<Holding>;
  release(partition: number, slots: number): Promise<Holding>;
  report(partition: number, summary: PartitionSummary): Promise<PoolSnapshot>;
  figures(): Promise<PoolSnapshot>;
}

/** Another partition of the pool, as a partition with work for its parked polls calls it. */
export interface PeerCalls {
  /** Whether a poll was parked there to send. */
  forward(from: number): Promise<boolean>;
}

const SPEECH_KINDS: readonly TaskKind[] = kindsOf("speech");

/** What a partition's line gives its summary and a task's place (a FairQueue). */
export interface PartitionLine {
  size(kinds: readonly TaskKind[]): number;
  keyLines(lane: Lane, kinds: readonly TaskKind[]): KeyLine[];
  rankOf(taskId: string, kinds: readonly TaskKind[]): { lane: Lane; owner: string; rank: number } | null;
}

/** The partition as its link reads it: its line, its speech leases out, its `auto` slots, its forwardable polls. */
export interface PartitionView {
  line: PartitionLine;
  used(): number;
  slots(): number;
  parked(): number;
}

/** Where a waiting task stands in its partition's line. */
type TaskAt = { lane: Lane; owner: string; rank: number };

/**
 * The link of a Dispatcher object named `objectName` to its pool's root: one for a partition of a
 * speech pool (DISPATCHER_PARTITIONS > 1), none for an unpartitioned scheduler (its figures are exact).
 */
export function poolLinkFor(env: Env, objectName: string | undefined, view: PartitionView): PoolLink | null {
  const key = objectName === undefined ? null : parseSchedulerName(objectName);
  if (key?.workClass !== "speech" || key.partition === undefined) return null;
  const config = workerConfig(env);
  const cap = config.maxConcurrentTranscribeJobs;
  const chunk = cap === "auto" ? 0 : chunkOf(cap, config.dispatcherPartitions);
  const ttlMs = BUDGET_TTL_LEASES * config.leaseTtlMs;
  const peer = (partition: number) => dispatcher(env, { ...key, partition });
  return new PoolLink(poolRoot(env, key.pool), peer, view, key.partition, cap, chunk, ttlMs);
}

/**
 * How many slots a partition asks the root for at once: exactly what it needs while the cap is small
 * (against 4 slots per partition), else an eighth of its share, so a busy partition calls the root once
 * per chunk of grants and an idle one hands back what its line does not need.
 */
export function chunkOf(cap: number, partitions: number): number {
  return cap < 4 * partitions ? 1 : Math.max(1, Math.floor(cap / (8 * partitions)));
}

/**
 * A speech partition's side of its pool's root (pool-root.ts): the slots of a numeric cap it holds, and
 * the pool's figures. Memory only: a restarted partition learns its holding from the root's answer to
 * its next call (the root's count is the authority), and grants nothing until then.
 */
export class PoolLink {
  private held = 0;
  /** Whether `held` is the root's word yet (a restarted partition with leases out must ask). */
  private known = false;
  /** When a refused partition asks the root again (null: it was not refused). */
  private retryAt: number | null = null;
  private expiresAt = 0;
  private dirty = true;
  private pushedAt = 0;
  private snapshot: PoolSnapshot | null = null;
  private pulledAt = 0;
  /** When work that found no parked poll elsewhere looks again (null: none waits for one). */
  private forwardAt: number | null = null;
  /** Places computed of the current snapshot (cleared with it, so at most the line's tasks). */
  private readonly places = new Map<string, number | null>();
  /**
   * When each key waiting here was last served (turns comparable across partitions; memory only). A key
   * leaves it as its line empties (`summary`): back later, it counts as never served here.
   */
  private readonly serves = new Map<string, number>();

  constructor(
    private readonly root: RootCalls,
    private readonly peer: (partition: number) => PeerCalls,
    private readonly view: PartitionView,
    readonly partition: number,
    /** The pool's cap; `auto` leases no budgets. */
    readonly cap: number | "auto",
    private readonly chunk: number,
    private readonly ttlMs: number,
  ) {}

  /** Whether the partition may grant one more speech lease: a slot of its budget is free and not expired. */
  covers(now: number): boolean {
    return this.cap === "auto" || (this.view.used() < this.held && now < this.expiresAt);
  }

  /**
   * With a numeric cap and tasks waiting, makes sure a slot is free: asks the root for a chunk when none
   * is. Refused (the cap is held elsewhere), it asks no more until RETRY_MS later, when its alarm asks
   * again: a full cap costs the root one call a second per starved partition, not one per node's ask, and
   * a slot freed in another partition reaches this line's parked nodes without waiting for their next ask.
   */
  async reserve(now: number): Promise<void> {
    if (this.cap === "auto") return;
    const waiting = this.view.line.size(SPEECH_KINDS);
    if (waiting === 0 || this.covers(now)) {
      this.retryAt = null;
      return;
    }
    if (this.retryAt !== null && now < this.retryAt) return;
    this.hold(await this.root.acquire(this.partition, Math.min(this.chunk, waiting)));
    this.retryAt = this.covers(now) ? null : now + RETRY_MS;
  }

  /**
   * Hands back the slots neither the leases out nor the line can use, and renews the rest once half
   * its time has passed (so the root reclaims only a silent partition's budget). A restarted partition
   * with leases out renews at once: that is how it learns what it holds.
   */
  private async settle(now: number): Promise<void> {
    if (this.cap === "auto" || (this.held === 0 && (this.known || this.view.used() === 0))) return;
    const surplus = this.held - this.view.used() - this.view.line.size(SPEECH_KINDS);
    if (surplus > 0) this.hold(await this.root.release(this.partition, surplus));
    else if (now >= this.renewAt()) this.hold(await this.root.acquire(this.partition, 0));
  }

  /**
   * After a change of the line or the leases: hands back the slots neither needs (or renews them) and
   * pushes the summary (at most once a second; the alarm pushes a later change).
   */
  async sync(now: number): Promise<void> {
    await this.settle(now);
    this.dirty = true;
    await this.push(now);
  }

  /** The next time the partition must call the root (renew its budget, push a change); null: none. */
  deadline(): number | null {
    const times = [
      this.held > 0 ? this.renewAt() : null,
      this.dirty ? this.pushedAt + PUSH_EVERY_MS : null,
      this.retryAt,
      this.forwardAt,
    ];
    const set = times.filter((time) => time !== null);
    return set.length > 0 ? Math.min(...set) : null;
  }

  /** A key was served here: its turn in the pool's line. */
  served(owner: string, now: number): void {
    this.serves.set(owner, now);
    this.dirty = true;
  }

  /**
   * A poll's figures: the pool's waiting and running speech tasks and its cap (the sum of the
   * partitions' `auto` slots, or the number), and the task's place in the pool's line, all as of a
   * snapshot at most 2 s old. A task the snapshot does not hold yet (it arrived since) pushes at once.
   */
  async stats(taskId: string | undefined, now: number): Promise<QueueStats> {
    await this.push(now);
    let snapshot = await this.figures(now);
    const at = taskId === undefined ? null : this.view.line.rankOf(taskId, SPEECH_KINDS);
    if (at && !this.holds(snapshot, at)) {
      await this.push(now, true);
      snapshot = await this.figures(now);
    }
    return {
      queued: snapshot.queued,
      processing: snapshot.processing,
      position: at ? this.placeOf(snapshot, at) : null,
      concurrency: this.cap === "auto" ? snapshot.slots : this.cap,
    };
  }

  /**
   * Of the partitions a node's ask sampled, the one to steal from (pool-figures.ts `busierOf`), as of the
   * pool's figures (at most 2 s old); null: none has work waiting.
   */
  async stealFrom(sampled: readonly number[], now: number): Promise<number | null> {
    if (sampled.length === 0) return null;
    return busierOf(await this.figures(now), sampled);
  }

  /**
   * While speech work waits here that no poll of this partition could take (`unserved`): sends a poll
   * parked in another partition (the one with the most, per the pool's figures) to steal it. With none
   * (or the figures behind), it looks again RETRY_MS later (its alarm), until the work is taken.
   */
  async forward(now: number, unserved: boolean): Promise<void> {
    const target = unserved ? parkedElsewhere(await this.figures(now), this.partition) : null;
    const sent = target !== null && (await this.peer(target).forward(this.partition));
    this.forwardAt = unserved && !sent ? now + RETRY_MS : null;
  }

  /** Whether work that found no parked poll elsewhere is due to look again. */
  forwardDue(now: number): boolean {
    return this.forwardAt !== null && now >= this.forwardAt;
  }

  /** The partition's speech line and leases as the root merges them; forgets the serves of keys gone from it. */
  private summary(): PartitionSummary {
    const { line } = this.view;
    const lanes = LANES.map((lane) => line.keyLines(lane, SPEECH_KINDS));
    const waiting = new Set(lanes.flatMap((keys) => keys.map((key) => key.owner)));
    for (const owner of this.serves.keys()) if (!waiting.has(owner)) this.serves.delete(owner);
    return {
      queued: line.size(SPEECH_KINDS),
      processing: this.view.used(),
      slots: this.view.slots(),
      parked: this.view.parked(),
      lanes: lanes.map((keys) =>
        keys.map((key) => ({
          owner: key.owner,
          running: key.running,
          waiting: key.waiting,
          servedAt: this.serves.get(key.owner) ?? 0,
          // The object's own serve counter orders its serves of one millisecond.
          servedOrder: key.lastServed,
          firstSeq: key.firstSeq,
        })),
      ),
    };
  }

  /** Pushes the summary when it changed and the last push is PUSH_EVERY_MS old (`force`: at once). */
  private async push(now: number, force = false): Promise<void> {
    if (!this.dirty || (!force && now - this.pushedAt < PUSH_EVERY_MS)) return;
    this.dirty = false;
    this.pushedAt = now;
    this.keep(await this.root.report(this.partition, this.summary()), now);
  }

  /** The pool's figures, read again when the copy is PULL_EVERY_MS old. */
  async figures(now: number): Promise<PoolSnapshot> {
    if (!this.snapshot || now - this.pulledAt >= PULL_EVERY_MS) this.keep(await this.root.figures(), now);
    return this.snapshot as PoolSnapshot;
  }

  /** A waiting task's place in the pool's line, computed once per snapshot. */
  private placeOf(snapshot: PoolSnapshot, { lane, owner, rank }: TaskAt): number | null {
    const id = `${lane}|${owner}|${rank}`;
    if (!this.places.has(id))
      this.places.set(id, placeInPool(snapshot, lane, poolOwner(this.partition, owner), rank));
    return this.places.get(id) ?? null;
  }

  /** Whether the snapshot holds the task: its key waits there with more tasks than its rank. */
  private holds(snapshot: PoolSnapshot, { lane, owner, rank }: TaskAt): boolean {
    const name = poolOwner(this.partition, owner);
    const key = snapshot.lanes[LANES.indexOf(lane)]?.find((line) => line.owner === name);
    return key !== undefined && key.waiting > rank;
  }

  private keep(snapshot: PoolSnapshot, now: number): void {
    this.snapshot = snapshot;
    this.pulledAt = now;
    this.places.clear();
  }

  private hold(holding: Holding): void {
    this.held = holding.slots;
    this.known = true;
    this.expiresAt = holding.expiresAt;
  }

  private renewAt(): number {
    return this.expiresAt - this.ttlMs / 2;
  }
}
