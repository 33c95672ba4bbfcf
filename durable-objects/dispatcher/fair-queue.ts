import type { Lane, TaskKind } from "../../protocol/task.ts";
import type { KeyLine } from "./fair-rotation.ts";
import { rebuildTable, tableDefinition } from "./table-rebuild.ts";
import { type NextTask, type RunningCounts, TurnIndex, type WaitingTask } from "./turn-index.ts";

export type { NextTask, WaitingTask };

/**
 * The Dispatcher's waiting line: interactive work before batch work, and within a lane the grant rule
 * of fair-rotation.ts across API keys (fewest running first, then the key served longest ago), FIFO
 * within one key. SQLite is the durable record; every decision reads the in-memory TurnIndex, rebuilt
 * from it when the object starts, so no call scans the line.
 */
export function createFairQueueTables(sql: SqlStorage): void {
  // Keyed by seq (the rowid) alone: a grant's delete writes one b-tree. A task waits at most once, which
  // memory guards (TurnIndex), so task_id has no UNIQUE index to keep; AUTOINCREMENT never hands a seq
  // out twice, as a task that waits again keeps its seq (its lease holds it).
  const create = (name: string) => `CREATE TABLE IF NOT EXISTS ${name} (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id TEXT NOT NULL,
    owner TEXT NOT NULL,
    lane TEXT NOT NULL,
    kind TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0
  )`;
  // Before 2026-11-27 task_id was UNIQUE: that table is rebuilt, its rows kept.
  if (tableDefinition(sql, "waiting")?.includes("UNIQUE"))
    rebuildTable(sql, "waiting", create, ["seq", "task_id", "owner", "lane", "kind", "attempts"]);
  sql.exec(create("waiting"));
  // The line's lookups are in memory now (TurnIndex); this index only cost a row write per change.
  sql.exec("DROP INDEX IF EXISTS waiting_lane_owner");
  // Round-robin state: the serve number when each key was last served, saved every SAVE_SERVES_EVERY
  // serves (`FairQueue.take`), when keys no longer served are also pruned (`FairQueue.saveServes`);
  // each lease also keeps the serve that made it (leases.served).
  sql.exec("CREATE TABLE IF NOT EXISTS owners (owner TEXT PRIMARY KEY, last_served INTEGER NOT NULL)");
}

/**
 * A grant writes no row of its key's: the keys' last serves are saved in one statement every this many
 * serves, and a running lease keeps its own (leases.served). A restart reads each key's last serve as
 * the later of the two (the serve counter as the highest), so it loses only serves among the last
 * SAVE_SERVES_EVERY - 1 grants whose leases have ended since: such a key rejoins the rotation as if last
 * served at its previous saved serve, and may go before keys with as many tasks running that it would
 * have followed. Nothing else moves: each key's FIFO, the running counts, every task's seq (its place
 * on another attempt) and which tasks wait are all exact.
 */
export const SAVE_SERVES_EVERY = 64;

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
  /** Keys served since the last save, each with its last serve's number. */
  private readonly unsaved = new Map<string, number>();
  /** The serve counter's value at the last save. */
  private savedUpTo: number;

  constructor(
    private readonly sql: SqlStorage,
    counts: RunningCounts,
  ) {
    this.index = new TurnIndex(counts);
    // Each key's last serve: the saved one, or a later one a running lease holds, which is saved with
    // the next save (the lease may end first).
    const keys = sql
      .exec<{ owner: string; saved: number | null; held: number | null }>(
        `SELECT owner, MAX(saved) AS saved, MAX(held) AS held FROM (
           SELECT owner, last_served AS saved, NULL AS held FROM owners
           UNION ALL SELECT owner, NULL, served FROM leases
         ) GROUP BY owner`,
      )
      .toArray();
    this.savedUpTo = keys.reduce((most, key) => Math.max(most, key.saved ?? 0), 0);
    const lastServed = keys.map((key): [string, number] => [
      key.owner,
      Math.max(key.saved ?? 0, key.held ?? 0),
    ]);
    for (const key of keys)
      if ((key.held ?? 0) > (key.saved ?? 0)) this.unsaved.set(key.owner, key.held ?? 0);
    this.index.restoreServes(
      lastServed.reduce((most, [, at]) => Math.max(most, at), 0),
      lastServed,
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
    const { seq: placed } = this.sql
      .exec<{ seq: number }>(
        "INSERT INTO waiting (seq, task_id, owner, lane, kind, attempts) VALUES (?, ?, ?, ?, ?, ?) RETURNING seq",
        seq ?? null,
        task.task_id,
        task.owner,
        task.lane,
        task.kind,
        task.attempts,
      )
      .one();
    this.index.add({
      seq: placed,
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
    const task = this.index.get(taskId);
    if (!task || !this.index.remove(taskId)) return false;
    this.sql.exec("DELETE FROM waiting WHERE seq = ?", task.seq);
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

  /**
   * Takes a task `peek` chose out of the line; its key becomes the one served most recently. Returns
   * the serve's number, for the lease to keep (leases.served); the keys' serves are saved together
   * every SAVE_SERVES_EVERY serves.
   */
  take(task: WaitingTask): number {
    this.index.remove(task.task_id);
    this.sql.exec("DELETE FROM waiting WHERE seq = ?", task.seq);
    const served = this.index.servedSoFar() + 1;
    this.index.markServed(task, served);
    this.unsaved.set(task.owner, served);
    if (served - this.savedUpTo >= SAVE_SERVES_EVERY) this.saveServes(served);
    return served;
  }

  /**
   * Saves the last serve of every key served since the last save, in one statement, and forgets the
   * serves of idle keys (`TurnIndex.forgetIdleServes`: nothing waiting or running, served before every
   * waiting key and before this serve), in memory and in `owners`, so neither grows with every key ever served.
   */
  private saveServes(served: number): void {
    const forgotten = this.index.forgetIdleServes(served);
    for (const owner of forgotten) this.unsaved.delete(owner);
    this.sql.exec(
      `INSERT INTO owners (owner, last_served) SELECT key, value FROM json_each(?) WHERE true
       ON CONFLICT (owner) DO UPDATE SET last_served = excluded.last_served`,
      JSON.stringify(Object.fromEntries(this.unsaved)),
    );
    if (forgotten.length > 0)
      this.sql.exec(
        "DELETE FROM owners WHERE owner IN (SELECT value FROM json_each(?))",
        JSON.stringify(forgotten),
      );
    this.unsaved.clear();
    this.savedUpTo = served;
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
