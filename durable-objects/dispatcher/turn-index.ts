/**
 * The waiting line in memory, ordered by the grant rule (fair-rotation.ts), so the next task is found
 * in O(log keys) and a task's place in O(1) from a snapshot, whatever the line's length.
 *
 * One "line" per lane and task kind holds each key's waiting tasks (FIFO by seq) and a red-black tree of
 * the keys' turns, ordered as `compareTurns` orders them: running tasks of the kind's work class, then last
 * served, then the seq of the key's oldest waiting task. A key's turn changes when it is served (its
 * last-served number and its head), when its tasks come and go, and when its running count changes,
 * each an O(log keys) update of the trees the key is in (at most lanes × kinds). The SQL tables stay
 * the durable record (fair-queue.ts); this index is rebuilt from them when the object starts. The
 * ordered sets are js-sdsl's red-black trees.
 */
import { OrderedSet } from "js-sdsl";
import {
  LANES,
  type Lane,
  TASK_KINDS,
  type TaskKind,
  type WorkClass,
  workClassOf,
} from "../../protocol/task.ts";
import { type KeyLine, type KeyTurn, placeInLine } from "./fair-rotation.ts";

export type WaitingTask = {
  seq: number;
  task_id: string;
  owner: string;
  lane: Lane;
  kind: TaskKind;
  attempts: number;
};

const WORK_CLASSES: readonly WorkClass[] = [...new Set(TASK_KINDS.map(workClassOf))];

/** A key's turn as a tree key: [running, lastServed, firstSeq, owner], compared field by field. */
type TurnKey = readonly [number, number, number, string];

function compareKeys(a: TurnKey, b: TurnKey): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || (a[3] < b[3] ? -1 : a[3] > b[3] ? 1 : 0);
}

/** One lane's tasks of one kind: each key's FIFO and the keys ordered by turn. */
class Line {
  readonly tasks = new Map<string, WaitingTask[]>();
  readonly turns = new OrderedSet<TurnKey>([], compareKeys);
  readonly keyOf = new Map<string, TurnKey>();

  constructor(
    readonly lane: Lane,
    readonly kind: TaskKind,
  ) {}
}

/** Counts the index needs from outside: tasks running per key and work class. */
export interface RunningCounts {
  running(owner: string, workClass: WorkClass): number;
}

/** The task the rule serves next for some kinds, with its lane's place in LANES and its key's turn. */
export interface NextTask {
  task: WaitingTask;
  laneIndex: number;
  turn: KeyTurn;
}

export class TurnIndex {
  private readonly lines = new Map<string, Line>();
  private readonly byTask = new Map<string, WaitingTask>();
  /** The lines each key has tasks in. */
  private readonly linesOf = new Map<string, Set<Line>>();
  private readonly lastServed = new Map<string, number>();
  private readonly waitingByKind = new Map<TaskKind, number>();
  private served = 0;
  /** Bumped by every change a task's place depends on. */
  version = 0;

  constructor(private readonly counts: RunningCounts) {}

  /** The serve counter (0 before the first serve) and each key's last serve, from storage. */
  restoreServes(served: number, lastServed: Iterable<[string, number]>): void {
    this.served = served;
    for (const [owner, at] of lastServed) this.lastServed.set(owner, at);
  }

  /** The serve counter: the number of the last serve (0 before the first). */
  servedSoFar(): number {
    return this.served;
  }

  has(taskId: string): boolean {
    return this.byTask.has(taskId);
  }

  get(taskId: string): WaitingTask | undefined {
    return this.byTask.get(taskId);
  }

  size(kinds: readonly TaskKind[]): number {
    return kinds.reduce((sum, kind) => sum + (this.waitingByKind.get(kind) ?? 0), 0);
  }

  /** Adds a waiting task (in seq order within its key). */
  add(task: WaitingTask): void {
    const line = this.line(task.lane, task.kind);
    const fifo = line.tasks.get(task.owner) ?? [];
    fifo.splice(insertionPoint(fifo, task.seq), 0, task);
    line.tasks.set(task.owner, fifo);
    this.byTask.set(task.task_id, task);
    this.waitingByKind.set(task.kind, (this.waitingByKind.get(task.kind) ?? 0) + 1);
    const lines = this.linesOf.get(task.owner) ?? new Set<Line>();
    this.linesOf.set(task.owner, lines);
    lines.add(line);
    this.rekey(line, task.owner);
  }

  /** Takes a waiting task out of the line; false when it is not waiting. */
  remove(taskId: string): boolean {
    const task = this.byTask.get(taskId);
    if (!task) return false;
    const line = this.line(task.lane, task.kind);
    const fifo = line.tasks.get(task.owner) ?? [];
    const at = insertionPoint(fifo, task.seq) - 1;
    if (fifo[at] === task) fifo.splice(at, 1);
    if (fifo.length === 0) {
      line.tasks.delete(task.owner);
      this.linesOf.get(task.owner)?.delete(line);
      if (this.linesOf.get(task.owner)?.size === 0) this.linesOf.delete(task.owner);
    }
    this.byTask.delete(taskId);
    this.waitingByKind.set(task.kind, (this.waitingByKind.get(task.kind) ?? 1) - 1);
    this.rekey(line, task.owner);
    return true;
  }

  /** Records that `task`'s key was just served as serve number `served`: its turn moves back. */
  markServed(task: WaitingTask, served: number): void {
    this.served = served;
    this.lastServed.set(task.owner, served);
    this.rekeyOwner(task.owner);
  }

  /**
   * Forgets the last serve of each key that waits nowhere, runs nothing, and was last served before every
   * key that waits and before serve `before` (the one being made, whose lease is not counted yet): such a
   * key rejoins as never served. Returns the keys forgotten. O(keys remembered).
   *
   * Who is served next among the keys that wait is unchanged (their serves stay), and a forgotten key
   * that comes back is placed as its old serve placed it against every key served since (all later, so
   * it goes ahead of those with as many running) and against the keys that never were. The one order
   * that moves: a key then running, and served before it and not since, now goes after it, not before.
   */
  forgetIdleServes(before: number): string[] {
    let oldestWaiting = before;
    for (const owner of this.linesOf.keys())
      oldestWaiting = Math.min(oldestWaiting, this.lastServed.get(owner) ?? 0);
    const forgotten: string[] = [];
    for (const [owner, at] of this.lastServed) {
      if (at >= oldestWaiting || this.linesOf.has(owner)) continue;
      if (WORK_CLASSES.some((workClass) => this.counts.running(owner, workClass) > 0)) continue;
      this.lastServed.delete(owner);
      forgotten.push(owner);
    }
    return forgotten;
  }

  /** The key's running count changed (a grant, a release): its turn moves in every line it waits in. */
  runningChanged(owner: string): void {
    this.rekeyOwner(owner);
  }

  /**
   * The task the rule serves next among `kinds` (of one work class), or null when none waits. LANES
   * lists the interactive lane first: it always goes ahead.
   */
  peek(kinds: readonly TaskKind[]): NextTask | null {
    for (const [laneIndex, lane] of LANES.entries()) {
      let best: { line: Line; key: TurnKey } | null = null;
      for (const kind of kinds) {
        const line = this.lines.get(lineId(lane, kind));
        const key = line?.turns.front();
        if (line && key && (!best || compareKeys(key, best.key) < 0)) best = { line, key };
      }
      if (!best) continue;
      const [running, lastServed, firstSeq, owner] = best.key;
      const task = taskAt(best.line, owner, 0);
      return { task, laneIndex, turn: { owner, running, lastServed, firstSeq } };
    }
    return null;
  }

  /**
   * Every waiting task of `kinds` (one work class) in the order the rule would serve them if no
   * running task ended meanwhile: its 1-based place. A simulation of the grants on copies of the turn
   * trees, O(waiting × log keys).
   */
  places(kinds: readonly TaskKind[]): Map<string, number> {
    const places = new Map<string, number>();
    const running = new Map<string, number>();
    const lastServed = new Map<string, number>();
    let served = this.served;
    const changed = new Set<string>();
    for (const lane of LANES) {
      const lines = kinds.flatMap((kind) => {
        const line = this.lines.get(lineId(lane, kind));
        return line
          ? [
              {
                line,
                turns: new OrderedSet<TurnKey>(line.turns, compareKeys),
                keyOf: new Map(line.keyOf),
                next: new Map<string, number>(),
              },
            ]
          : [];
      });
      const keyFor = (sim: (typeof lines)[number], owner: string): TurnKey | null => {
        const fifo = sim.line.tasks.get(owner) ?? [];
        const head = fifo[sim.next.get(owner) ?? 0];
        if (!head) return null;
        const workClass = workClassOf(sim.line.kind);
        return [
          running.get(owner) ?? this.counts.running(owner, workClass),
          lastServed.get(owner) ?? this.lastServed.get(owner) ?? 0,
          head.seq,
          owner,
        ];
      };
      const move = (sim: (typeof lines)[number], owner: string) => {
        const old = sim.keyOf.get(owner);
        if (old) sim.turns.eraseElementByKey(old);
        const key = keyFor(sim, owner);
        if (key) {
          sim.turns.insert(key);
          sim.keyOf.set(owner, key);
        } else sim.keyOf.delete(owner);
      };
      // Keys served in an earlier lane start this one as that lane left them.
      for (const sim of lines) for (const owner of changed) if (sim.keyOf.has(owner)) move(sim, owner);
      for (;;) {
        let best: { sim: (typeof lines)[number]; key: TurnKey } | null = null;
        for (const sim of lines) {
          const key = sim.turns.front();
          if (key && (!best || compareKeys(key, best.key) < 0)) best = { sim, key };
        }
        if (!best) break;
        const owner = best.key[3];
        const index = best.sim.next.get(owner) ?? 0;
        const task = taskAt(best.sim.line, owner, index);
        places.set(task.task_id, places.size + 1);
        best.sim.next.set(owner, index + 1);
        running.set(owner, best.key[0] + 1);
        lastServed.set(owner, ++served);
        changed.add(owner);
        for (const sim of lines) if (sim.keyOf.has(owner)) move(sim, owner);
      }
    }
    return places;
  }

  /**
   * One waiting task's 1-based place among the tasks of `kinds` (one work class), from the rule's
   * closed form (fair-rotation.ts `placeInLine`) over each key's line: O(keys), for a task that a
   * snapshot of `places` does not hold yet.
   */
  placeOf(taskId: string, kinds: readonly TaskKind[]): number | null {
    const task = this.byTask.get(taskId);
    if (!task) return null;
    const lanes = LANES.slice(0, LANES.indexOf(task.lane) + 1).map((lane) => this.keyLines(lane, kinds));
    let rank = 0;
    for (const kind of kinds) {
      const fifo = this.lines.get(lineId(task.lane, kind))?.tasks.get(task.owner) ?? [];
      rank += insertionPoint(fifo, task.seq - 1);
    }
    return placeInLine(lanes, task.owner, rank, this.served);
  }

  /** A waiting task's lane, key, and how many of its key's tasks of `kinds` wait ahead of it in that lane. */
  rankOf(taskId: string, kinds: readonly TaskKind[]): { lane: Lane; owner: string; rank: number } | null {
    const task = this.byTask.get(taskId);
    if (!task) return null;
    let rank = 0;
    for (const kind of kinds) {
      const fifo = this.lines.get(lineId(task.lane, kind))?.tasks.get(task.owner) ?? [];
      rank += insertionPoint(fifo, task.seq - 1);
    }
    return { lane: task.lane, owner: task.owner, rank };
  }

  /** Each key with tasks of `kinds` waiting in `lane`: its turn and how many wait. */
  keyLines(lane: Lane, kinds: readonly TaskKind[]): KeyLine[] {
    const byOwner = new Map<string, KeyLine>();
    for (const kind of kinds) {
      const line = this.lines.get(lineId(lane, kind));
      if (!line) continue;
      for (const [owner, fifo] of line.tasks) {
        const head = fifo[0];
        if (!head) continue;
        const seen = byOwner.get(owner);
        if (seen) {
          seen.waiting += fifo.length;
          seen.firstSeq = Math.min(seen.firstSeq, head.seq);
        } else
          byOwner.set(owner, {
            owner,
            waiting: fifo.length,
            running: this.counts.running(owner, workClassOf(kind)),
            lastServed: this.lastServed.get(owner) ?? 0,
            firstSeq: head.seq,
          });
      }
    }
    return [...byOwner.values()];
  }

  private line(lane: Lane, kind: TaskKind): Line {
    const id = lineId(lane, kind);
    const line = this.lines.get(id) ?? new Line(lane, kind);
    this.lines.set(id, line);
    return line;
  }

  private rekeyOwner(owner: string): void {
    for (const line of this.linesOf.get(owner) ?? []) this.rekey(line, owner);
  }

  /** Puts `owner`'s turn in `line` where its figures now place it (or takes it out when it has no task there). */
  private rekey(line: Line, owner: string): void {
    this.version++;
    const old = line.keyOf.get(owner);
    if (old) line.turns.eraseElementByKey(old);
    const head = line.tasks.get(owner)?.[0];
    if (!head) {
      line.keyOf.delete(owner);
      return;
    }
    const key: TurnKey = [
      this.counts.running(owner, workClassOf(line.kind)),
      this.lastServed.get(owner) ?? 0,
      head.seq,
      owner,
    ];
    line.turns.insert(key);
    line.keyOf.set(owner, key);
  }
}

/** A key's `index`-th waiting task in a line; a key in a line's turns always has one (else the index is broken). */
function taskAt(line: Line, owner: string, index: number): WaitingTask {
  const task = line.tasks.get(owner)?.[index];
  if (!task)
    throw new Error(`turn index: ${owner} has no task ${index} in its ${line.lane} ${line.kind} line`);
  return task;
}

function lineId(lane: Lane, kind: TaskKind): string {
  return `${lane}\u0000${kind}`;
}

/** Where a task of `seq` goes in a FIFO sorted by seq (after any equal one). */
function insertionPoint(fifo: readonly WaitingTask[], seq: number): number {
  let lo = 0;
  let hi = fifo.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((fifo[mid]?.seq ?? Number.POSITIVE_INFINITY) <= seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
