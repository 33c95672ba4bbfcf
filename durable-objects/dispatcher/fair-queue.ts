import type { Lane, TaskKind } from "../../protocol/task.ts";
import type { KeyLine } from "./fair-rotation.ts";
import { type NextTask, type RunningCounts, TurnIndex, type WaitingTask } from "./turn-index.ts";

export type { NextTask, WaitingTask };

/**
 * The Dispatcher's waiting line: interactive work before batch work, and within a lane the grant rule
 * of fair-rotation.ts across API keys (fewest running first, then the key served longest ago), FIFO
 * within one key. SQLite is the durable record; every decision reads the in-memory TurnIndex, rebuilt
 * from it when the object starts, so no call scans the line.
 */
export function createFairQueueTables(sql: SqlStorage): void {
  sql.exec(`CREATE TABLE IF NOT EXISTS waiting (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id TEXT NOT NULL UNIQUE,
    owner TEXT NOT NULL,
    lane TEXT NOT NULL,
    kind TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0
  )`);
  // The line's lookups are in memory now (TurnIndex); this index only cost a row write per change.
  sql.exec("DROP INDEX IF EXISTS waiting_lane_owner");
  // Round-robin state: the serve number when each key was last served. The serve counter is the
  // highest of them (each serve writes its key's row), so it needs no row of its own.
  sql.exec("CREATE TABLE IF NOT EXISTS owners (owner TEXT PRIMARY KEY, last_served INTEGER NOT NULL)");
}

/** Above this many tasks waiting in a work class, a task's place may come from a snapshot up to a second old. */
export const EXACT_PLACES_UP_TO = 1_000;
const SNAPSHOT_MAX_AGE_MS = 1_000;

interface PlacesSnapshot {
  version: number;
  at: number;
  places: Map<string, number>;
}

export class FairQueue {
  private readonly index: TurnIndex;
  private readonly snapshots = new Map<string, PlacesSnapshot>();

  constructor(
    private readonly sql: SqlStorage,
    counts: RunningCounts,
  ) {
    this.index = new TurnIndex(counts);
    const owners = sql
      .exec<{ owner: string; last_served: number }>("SELECT owner, last_served FROM owners")
      .toArray();
    this.index.restoreServes(
      Math.max(0, ...owners.map((row) => row.last_served)),
      owners.map((row) => [row.owner, row.last_served]),
    );
    for (const task of sql.exec<WaitingTask>("SELECT * FROM waiting ORDER BY seq"))
      this.index.add({ ...task });
  }

  /** Bumped by every change a waiting task's place depends on. */
  get version(): number {
    return this.index.version;
  }

  /** Adds a task; a task that is already waiting is left where it is. `seq` restores a former place. */
  push(task: Omit<WaitingTask, "seq">, seq?: number): void {
    if (this.index.has(task.task_id)) return;
    const row = this.sql
      .exec<{ seq: number }>(
        `INSERT INTO waiting (seq, task_id, owner, lane, kind, attempts) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (task_id) DO NOTHING RETURNING seq`,
        seq ?? null,
        task.task_id,
        task.owner,
        task.lane,
        task.kind,
        task.attempts,
      )
      .toArray()[0];
    if (row)
      this.index.add({
        seq: row.seq,
        task_id: task.task_id,
        owner: task.owner,
        lane: task.lane,
        kind: task.kind,
        attempts: task.attempts,
      });
  }

  has(taskId: string): boolean {
    return this.index.has(taskId);
  }

  remove(taskId: string): boolean {
    if (!this.index.remove(taskId)) return false;
    this.sql.exec("DELETE FROM waiting WHERE task_id = ?", taskId);
    return true;
  }

  /** Tasks waiting, of the given kinds. */
  size(kinds: readonly TaskKind[]): number {
    return this.index.size(kinds);
  }

  /** The kind of a waiting task, or null when it is not waiting. */
  kindOf(taskId: string): TaskKind | null {
    return this.index.get(taskId)?.kind ?? null;
  }

  /**
   * The task the rule serves next among `kinds` (of one work class), or null when none waits. LANES
   * lists the interactive lane first: it always goes ahead.
   */
  peek(kinds: readonly TaskKind[]): NextTask | null {
    return this.index.peek(kinds);
  }

  /** Takes a task `peek` chose out of the line; its key becomes the one served most recently. */
  take(task: WaitingTask): void {
    this.index.remove(task.task_id);
    this.sql.exec("DELETE FROM waiting WHERE seq = ?", task.seq);
    const served = this.index.servedSoFar() + 1;
    this.sql.exec(
      `INSERT INTO owners (owner, last_served) VALUES (?, ?)
       ON CONFLICT (owner) DO UPDATE SET last_served = excluded.last_served`,
      task.owner,
      served,
    );
    this.index.markServed(task, served);
  }

  /** A key's running count changed (a grant or a release): its place in the rotation moves. */
  runningChanged(owner: string): void {
    this.index.runningChanged(owner);
  }

  /** Each key with tasks of `kinds` waiting in `lane`: its turn (this object's counters) and how many wait. */
  keyLines(lane: Lane, kinds: readonly TaskKind[]): KeyLine[] {
    return this.index.keyLines(lane, kinds);
  }

  /** A waiting task's lane, key, and its place among its key's tasks of `kinds` there (0-based). */
  rankOf(taskId: string, kinds: readonly TaskKind[]): { lane: Lane; owner: string; rank: number } | null {
    return this.index.rankOf(taskId, kinds);
  }

  /**
   * 1-based place of a waiting task among the tasks of `kinds` (those that share its capacity): the tasks
   * the rule serves before it, plus one, if no running task ended meanwhile; null when it is not waiting.
   * Places come from a snapshot of the whole line's order (O(waiting × log keys) to make), made again
   * after any change while at most EXACT_PLACES_UP_TO tasks wait. Above that a snapshot is made at most
   * once per SNAPSHOT_MAX_AGE_MS: a task it holds reads its place there (O(1), as of the snapshot), a
   * newer one gets its exact place from the rule's closed form (O(keys)), kept with the snapshot.
   */
  position(taskId: string, kinds: readonly TaskKind[], now: number): number | null {
    if (!this.index.has(taskId)) return null;
    const id = kinds.join(",");
    const snapshot = this.snapshots.get(id);
    const large = this.index.size(kinds) > EXACT_PLACES_UP_TO;
    const current = snapshot?.version === this.index.version;
    const young = snapshot !== undefined && now - snapshot.at < SNAPSHOT_MAX_AGE_MS;
    if (snapshot && (current || (large && young))) {
      const kept = snapshot.places.get(taskId);
      if (kept !== undefined) return kept;
      if (current) return null;
      // Exact now, and kept with the snapshot: it is as old as the snapshot allows when read again.
      const place = this.index.placeOf(taskId, kinds);
      if (place !== null) snapshot.places.set(taskId, place);
      return place;
    }
    const made = { version: this.index.version, at: now, places: this.index.places(kinds) };
    this.snapshots.set(id, made);
    return made.places.get(taskId) ?? null;
  }
}
