import { LANES, type Lane, type TaskKind } from "../../protocol/task.ts";

/**
 * The Dispatcher's waiting line in SQLite: interactive work before batch work, and within a lane
 * round-robin across API keys (the key served longest ago goes next), FIFO within one key.
 */

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

  /** Takes the next task for a node that serves `kinds`, or null when nothing fits. */
  pop(kinds: readonly TaskKind[]): WaitingTask | null {
    if (kinds.length === 0) return null;
    const kindList = marks(kinds);
    // LANES lists the interactive lane first: it is always served ahead of batch work.
    for (const lane of LANES) {
      const next = this.sql
        .exec<WaitingTask>(
          `SELECT w.* FROM waiting w
           LEFT JOIN owners o ON o.owner = w.owner
           WHERE w.lane = ? AND w.kind IN (${kindList})
           ORDER BY COALESCE(o.last_served, 0), w.seq
           LIMIT 1`,
          lane,
          ...kinds,
        )
        .toArray()[0];
      if (!next) continue;
      this.sql.exec("DELETE FROM waiting WHERE seq = ?", next.seq);
      this.sql.exec(
        `INSERT INTO owners (owner, last_served) VALUES (?, ?)
         ON CONFLICT (owner) DO UPDATE SET last_served = excluded.last_served`,
        next.owner,
        this.nextServeNumber(),
      );
      return next;
    }
    return null;
  }

  /**
   * 1-based place of a waiting task among the tasks of `kinds` (those that share its capacity): the
   * tasks that round-robin serves before it. Every interactive task precedes a batch one; within the
   * lane, a key ahead in the rotation gets one more turn than the task's own key has tasks before it,
   * a key behind gets as many.
   */
  position(taskId: string, kinds: readonly TaskKind[]): number | null {
    const task = this.sql.exec<WaitingTask>("SELECT * FROM waiting WHERE task_id = ?", taskId).toArray()[0];
    if (!task) return null;
    const kindList = marks(kinds);
    const ownRank = this.sql
      .exec<{ n: number }>(
        `SELECT COUNT(*) AS n FROM waiting WHERE lane = ? AND owner = ? AND seq < ? AND kind IN (${kindList})`,
        task.lane,
        task.owner,
        task.seq,
        ...kinds,
      )
      .one().n;
    const ownTurn = this.rotationKey(task.owner, task.lane);
    const others = this.sql
      .exec<{ owner: string; n: number; last_served: number; first_seq: number }>(
        `SELECT w.owner, COUNT(*) AS n, COALESCE(o.last_served, 0) AS last_served, MIN(w.seq) AS first_seq
         FROM waiting w LEFT JOIN owners o ON o.owner = w.owner
         WHERE w.lane = ? AND w.owner != ? AND w.kind IN (${kindList}) GROUP BY w.owner`,
        task.lane,
        task.owner,
        ...kinds,
      )
      .toArray();
    let ahead = ownRank;
    for (const other of others) {
      const aheadInRotation =
        other.last_served < ownTurn.last_served ||
        (other.last_served === ownTurn.last_served && other.first_seq < ownTurn.first_seq);
      ahead += Math.min(other.n, aheadInRotation ? ownRank + 1 : ownRank);
    }
    if (task.lane === "batch") {
      ahead += this.sql
        .exec<{ n: number }>(
          `SELECT COUNT(*) AS n FROM waiting WHERE lane = 'interactive' AND kind IN (${kindList})`,
          ...kinds,
        )
        .one().n;
    }
    return ahead + 1;
  }

  private rotationKey(owner: string, lane: Lane): { last_served: number; first_seq: number } {
    return this.sql
      .exec<{ last_served: number; first_seq: number }>(
        `SELECT COALESCE((SELECT last_served FROM owners WHERE owner = ?), 0) AS last_served,
                (SELECT MIN(seq) FROM waiting WHERE owner = ? AND lane = ?) AS first_seq`,
        owner,
        owner,
        lane,
      )
      .one();
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
