/**
 * The grant rule, as plain functions over per-key figures (the Dispatcher reads them from its SQLite
 * storage). Within one lane and one work class's slots, the next task goes to the key with the
 * fewest tasks running, ties to the key served longest ago, then to the key whose oldest waiting task
 * is oldest; a key's own tasks go FIFO. A lone key therefore uses every slot, a running task is never
 * preempted, and while two or more keys wait each freed slot goes to the key furthest below its share.
 */

/** Where one key with waiting tasks stands in one lane, for one work class's slots. */
export interface KeyTurn {
  owner: string;
  /** Its tasks holding a slot of the work class now. */
  running: number;
  /** The serve counter's value when the key was last served (0: never). */
  lastServed: number;
  /** `seq` of its oldest waiting task in the lane. */
  firstSeq: number;
}

/** A key's turn plus how many of its tasks wait in the lane. */
export interface KeyLine extends KeyTurn {
  waiting: number;
}

/** Orders turns by the grant rule: negative when `a` is served before `b`. */
export function compareTurns(a: KeyTurn, b: KeyTurn): number {
  return a.running - b.running || a.lastServed - b.lastServed || a.firstSeq - b.firstSeq;
}

/** The key the rule serves next, or null when none waits. */
export function nextTurn<T extends KeyTurn>(turns: readonly T[]): T | null {
  let best: T | null = null;
  for (const turn of turns) if (!best || compareTurns(turn, best) < 0) best = turn;
  return best;
}

/**
 * How many tasks of `others` the rule serves before the `rank`-th (0-based) waiting task of `own`,
 * counting each grant as one more running task of its key and no running task ending meanwhile.
 *
 * That task is served at "level" `own.running + rank` (its key's running count then). Every task of a
 * lower level goes first. At the same level, a key that reached it with more tasks already running
 * goes first (the others were served on the way up, more recently), then the rotation's order.
 */
export function servedBefore(own: KeyTurn, rank: number, others: readonly KeyLine[]): number {
  const level = own.running + rank;
  let ahead = 0;
  for (const other of others) {
    ahead += Math.min(other.waiting, Math.max(0, level - other.running));
    const waitsAtLevel = other.running <= level && level < other.running + other.waiting;
    const firstAtLevel =
      other.running !== own.running ? other.running > own.running : compareTurns(other, own) < 0;
    if (waitsAtLevel && firstAtLevel) ahead += 1;
  }
  return ahead;
}

/**
 * 1-based place of the `rank`-th (0-based) waiting task of `owner` in the last of `lanes` (each lane's
 * lines, in LANES order, up to the task's own): every task of an earlier lane, then `servedBefore` in
 * its own, where each key starts as the earlier lanes leave it (`served`: the serve counter's value).
 */
export function placeInLine(
  lanes: readonly (readonly KeyLine[])[],
  owner: string,
  rank: number,
  served: number,
): number | null {
  let ahead = 0;
  let servedSoFar = served;
  let carried = new Map<string, Omit<KeyTurn, "firstSeq">>();
  for (const [index, laneLines] of lanes.entries()) {
    const lines = laneLines.map((line) => ({ ...line, ...carried.get(line.owner) }));
    if (index === lanes.length - 1) {
      const own = lines.find((line) => line.owner === owner);
      if (!own) return null;
      const others = lines.filter((line) => line.owner !== owner);
      return ahead + rank + servedBefore(own, rank, others) + 1;
    }
    carried = new Map([...carried, ...afterLane(lines, servedSoFar)]);
    const waiting = lines.reduce((sum, line) => sum + line.waiting, 0);
    ahead += waiting;
    servedSoFar += waiting;
  }
  return null;
}

/**
 * The keys' turns once every task of `lines` (one lane) has been served: each key runs its waiting
 * tasks too and was served last at its last task's turn, after every earlier serve (`served`).
 */
function afterLane(lines: readonly KeyLine[], served: number): Map<string, Omit<KeyTurn, "firstSeq">> {
  const after = new Map<string, Omit<KeyTurn, "firstSeq">>();
  for (const line of lines) {
    const others = lines.filter((other) => other.owner !== line.owner);
    const lastRank = line.waiting - 1;
    const lastTurn = lastRank + servedBefore(line, lastRank, others) + 1;
    after.set(line.owner, {
      owner: line.owner,
      running: line.running + line.waiting,
      lastServed: served + lastTurn,
    });
  }
  return after;
}
