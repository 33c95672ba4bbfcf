import { LANES, type Lane, type TaskKind } from "../../protocol/task.ts";
import { type KeyLine, type KeyTurn, nextTurn, placeInLine } from "./fair-rotation.ts";

/**
 * The Dispatcher's waiting line in SQLite: interactive work before batch work, and within a lane the
 * grant rule of fair-rotation.ts across API keys (fewest running first, then the key served longest
 * ago), FIFO within one key.
 */

/** Tasks running per key, in the work class being granted or placed. */
export type RunningByOwner = ReadonlyMap<string, number>;

/** The task the rule serves next for some kinds, with its lane's place in LANES and its key's turn. */
export interface NextTask {
  task: WaitingTask;
  laneIndex: number;
  turn: KeyTurn;
}

export type WaitingTask = {
  seq: number;
  task_id: string;
  owner: string;
  lane: Lane;
  kind: TaskKind;
  attempts: number;
};

export function createFairQueueTables(sql: SqlStorage): void {
  sql.exec(`CREATE TABLE IF NOT EXISTS waiting (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id TEXT NOT NULL UNIQUE,
    owner TEXT NOT NULL,
    lane TEXT NOT NULL,
    kind TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0
  )`);
  sql.exec("CREATE INDEX IF NOT EXISTS waiting_lane_owner ON waiting (lane, owner, seq)");
  // Round-robin state: the serve counter value when each key was last served.
  sql.exec("CREATE TABLE IF NOT EXISTS owners (owner TEXT PRIMARY KEY, last_served INTEGER NOT NULL)");
  sql.exec("CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)");
}

export class FairQueue {
  constructor(private readonly sql: SqlStorage) {}

  /** Adds a task; a task that is already waiting is left where it is. `seq` restores a former place. */
  push(task: Omit<WaitingTask, "seq">, seq?: number): void {
    this.sql.exec(
      `INSERT INTO waiting (seq, task_id, owner, lane, kind, attempts) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (task_id) DO NOTHING`,
      seq ?? null,
      task.task_id,
      task.owner,
      task.lane,
      task.kind,
      task.attempts,
    );
  }

  has(taskId: string): boolean {
    return this.sql.exec("SELECT 1 FROM waiting WHERE task_id = ?", taskId).toArray().length > 0;
  }

  remove(taskId: string): boolean {
    return this.sql.exec("DELETE FROM waiting WHERE task_id = ?", taskId).rowsWritten > 0;
  }

  /** Tasks waiting, of the given kinds. */
  size(kinds: readonly TaskKind[]): number {
    return this.sql
      .exec<{ n: number }>(`SELECT COUNT(*) AS n FROM waiting WHERE kind IN (${marks(kinds)})`, ...kinds)
      .one().n;
  }

  /** The kind of a waiting task, or null when it is not waiting. */
  kindOf(taskId: string): TaskKind | null {
    return (
      this.sql.exec<{ kind: TaskKind }>("SELECT kind FROM waiting WHERE task_id = ?", taskId).toArray()[0]
        ?.kind ?? null
    );
  }

  /**
   * The task the rule serves next among `kinds` (of one work class, whose running tasks per key are
   * `running`), or null when none waits. LANES lists the interactive lane first: it always goes ahead.
   */
  peek(kinds: readonly TaskKind[], running: RunningByOwner): NextTask | null {
    if (kinds.length === 0) return null;
    for (const [laneIndex, lane] of LANES.entries()) {
      const turn = nextTurn(this.lines(lane, kinds, running));
      if (!turn) continue;
      const task = this.sql
        .exec<WaitingTask>(
          `SELECT * FROM waiting WHERE lane = ? AND owner = ? AND kind IN (${marks(kinds)}) ORDER BY seq LIMIT 1`,
          lane,
          turn.owner,
          ...kinds,
        )
        .one();
      return { task, laneIndex, turn };
    }
    return null;
  }

  /** Takes a task `peek` chose out of the line; its key becomes the one served most recently. */
  take(task: WaitingTask): void {
    this.sql.exec("DELETE FROM waiting WHERE seq = ?", task.seq);
    this.sql.exec(
      `INSERT INTO owners (owner, last_served) VALUES (?, ?)
       ON CONFLICT (owner) DO UPDATE SET last_served = excluded.last_served`,
      task.owner,
      this.nextServeNumber(),
    );
  }

  /**
   * 1-based place of a waiting task among the tasks of `kinds` (those that share its capacity, whose
   * running tasks per key are `running`): the tasks the rule serves before it if no running task ended
   * meanwhile. Every task of an earlier lane precedes it; within its lane, fair-rotation.ts counts.
   */
  position(taskId: string, kinds: readonly TaskKind[], running: RunningByOwner): number | null {
    const task = this.sql.exec<WaitingTask>("SELECT * FROM waiting WHERE task_id = ?", taskId).toArray()[0];
    if (!task) return null;
    const lanes = LANES.slice(0, LANES.indexOf(task.lane) + 1).map((lane) =>
      this.lines(lane, kinds, running),
    );
    const rank = this.sql
      .exec<{ n: number }>(
        `SELECT COUNT(*) AS n FROM waiting WHERE lane = ? AND owner = ? AND seq < ? AND kind IN (${marks(kinds)})`,
        task.lane,
        task.owner,
        task.seq,
        ...kinds,
      )
      .one().n;
    return placeInLine(lanes, task.owner, rank, this.servedSoFar());
  }

  /** Each key with tasks of `kinds` waiting in `lane`: its turn and how many wait. */
  private lines(lane: Lane, kinds: readonly TaskKind[], running: RunningByOwner): KeyLine[] {
    return this.sql
      .exec<{ owner: string; waiting: number; last_served: number; first_seq: number }>(
        `SELECT w.owner, COUNT(*) AS waiting, COALESCE(o.last_served, 0) AS last_served, MIN(w.seq) AS first_seq
         FROM waiting w LEFT JOIN owners o ON o.owner = w.owner
         WHERE w.lane = ? AND w.kind IN (${marks(kinds)}) GROUP BY w.owner`,
        lane,
        ...kinds,
      )
      .toArray()
      .map((row) => ({
        owner: row.owner,
        waiting: row.waiting,
        running: running.get(row.owner) ?? 0,
        lastServed: row.last_served,
        firstSeq: row.first_seq,
      }));
  }

  /** The serve counter's current value (0 before the first serve). */
  private servedSoFar(): number {
    return (
      this.sql.exec<{ value: number }>("SELECT value FROM counters WHERE name = 'served'").toArray()[0]
        ?.value ?? 0
    );
  }

  private nextServeNumber(): number {
    return this.sql
      .exec<{ value: number }>(
        `INSERT INTO counters (name, value) VALUES ('served', 1)
         ON CONFLICT (name) DO UPDATE SET value = value + 1 RETURNING value`,
      )
      .one().value;
  }
}

/** One `?` per kind, for an SQL `IN (...)` list. */
function marks(kinds: readonly TaskKind[]): string {
  return kinds.map(() => "?").join(",") || "NULL";
}
