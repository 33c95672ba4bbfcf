/**
 * A partitioned speech pool's deployment-wide queue figures, as plain functions: each partition sums up
 * its line (`PartitionSummary`), the root merges the summaries (`mergeSummaries`), and a task's place is
 * read off the merged line (`placeInPool`).
 *
 * The deployment-wide order is the grant rule of fair-rotation.ts over every partition's key lines as
 * one line. A key lives in one partition (key-affine), so its running and waiting counts are that
 * partition's; only the turn fields need making comparable across partitions: "served longest ago" goes
 * by the time of the key's last serve (ties by partition, then by the partition's own serve order), and
 * the oldest waiting task by its `seq` (ties by partition). The merge ranks both, so the rule's closed
 * form (`placeInLine`) reads them as it reads one object's counters.
 */
import { LANES, type Lane } from "../../protocol/task.ts";
import { type KeyLine, placeInLine } from "./fair-rotation.ts";

/** One key's line in one lane of a partition, with turn fields comparable across partitions. */
export interface SummaryKey {
  owner: string;
  running: number;
  waiting: number;
  /** Time of the key's last serve in ms (0: never served since the partition started). */
  servedAt: number;
  /** The partition's own serve order of that serve (breaks ties of `servedAt`). */
  servedOrder: number;
  /** The partition's `seq` of the key's oldest waiting task in the lane. */
  firstSeq: number;
}

/** What a partition pushes to its pool's root (speech only: rendering is never partitioned). */
export interface PartitionSummary {
  queued: number;
  processing: number;
  /** Under `auto`, the slots its home nodes offer (the pool's concurrency is the sum). */
  slots: number;
  /** Speech polls parked there that another partition may send to steal (parked-polls.ts `forward`). */
  parked: number;
  /** Each lane's key lines, in LANES order. */
  lanes: SummaryKey[][];
}

/** What a node's ask and a forwarding partition read of each partition: its waiting tasks and parked polls. */
export interface PartitionLoad {
  partition: number;
  queued: number;
  parked: number;
}

/** The pool's line as one: key lines named `<partition>:<owner>`, with ranked turn fields. */
export interface PoolSnapshot {
  at: number;
  queued: number;
  processing: number;
  slots: number;
  /** The serve counter the ranked `lastServed` fields start from. */
  served: number;
  lanes: KeyLine[][];
  partitions: PartitionLoad[];
}

/** The name of a key in the merged line (a key found in two partitions, after a repartition, stays two). */
export function poolOwner(partition: number, owner: string): string {
  return `${partition}:${owner}`;
}

/** Merges the partitions' summaries into the pool's line: O(keys × log keys), once per snapshot. */
export function mergeSummaries(summaries: ReadonlyMap<number, PartitionSummary>, at: number): PoolSnapshot {
  const all = [...summaries].flatMap(([partition, summary]) =>
    summary.lanes.flatMap((keys, lane) => keys.map((key) => ({ partition, lane, key }))),
  );
  const servedRank = rankBy(
    all.filter(({ key }) => key.servedAt > 0),
    (a, b) =>
      a.key.servedAt - b.key.servedAt || a.partition - b.partition || a.key.servedOrder - b.key.servedOrder,
    ({ partition, key }) => poolOwner(partition, key.owner),
  );
  const seqRank = rankBy(
    all,
    (a, b) => a.key.firstSeq - b.key.firstSeq || a.partition - b.partition,
    ({ partition, lane, key }) => `${lane}|${poolOwner(partition, key.owner)}`,
  );
  const lanes: KeyLine[][] = LANES.map(() => []);
  for (const { partition, lane, key } of all) {
    const owner = poolOwner(partition, key.owner);
    lanes[lane]?.push({
      owner,
      running: key.running,
      waiting: key.waiting,
      lastServed: servedRank.get(owner) ?? 0,
      firstSeq: seqRank.get(`${lane}|${owner}`) ?? 0,
    });
  }
  let queued = 0;
  let processing = 0;
  let slots = 0;
  for (const summary of summaries.values()) {
    queued += summary.queued;
    processing += summary.processing;
    slots += summary.slots;
  }
  const partitions = [...summaries].map(([partition, summary]) => ({
    partition,
    queued: summary.queued,
    parked: summary.parked,
  }));
  return { at, queued, processing, slots, served: servedRank.size, lanes, partitions };
}

/**
 * Where a node whose home has nothing for it steals: of the partitions it sampled, the one with the
 * most waiting tasks; null when none has any (then it parks at home).
 */
export function busierOf(snapshot: PoolSnapshot, sampled: readonly number[]): number | null {
  return mostOf(
    snapshot.partitions.filter((load) => sampled.includes(load.partition)),
    (load) => load.queued,
  );
}

/** Where a partition with work no poll of its own can take forwards it: the one with the most parked polls. */
export function parkedElsewhere(snapshot: PoolSnapshot, self: number): number | null {
  return mostOf(
    snapshot.partitions.filter((load) => load.partition !== self),
    (load) => load.parked,
  );
}

/** The partition of the load with the highest positive `figure` (the lowest partition on a tie); null: none. */
function mostOf(loads: PartitionLoad[], figure: (load: PartitionLoad) => number): number | null {
  let best: PartitionLoad | null = null;
  for (const load of loads) {
    if (
      figure(load) > 0 &&
      (!best ||
        figure(load) > figure(best) ||
        (figure(load) === figure(best) && load.partition < best.partition))
    )
      best = load;
  }
  return best?.partition ?? null;
}

/**
 * 1-based place in the pool's line of the `rank`-th (0-based) waiting task of `owner` (a `poolOwner`
 * name) in `lane`: the rule's closed form over the snapshot's lines, O(keys) (O(keys²) behind the
 * interactive lane); null when the snapshot does not hold the key there.
 */
export function placeInPool(snapshot: PoolSnapshot, lane: Lane, owner: string, rank: number): number | null {
  const upTo = LANES.indexOf(lane) + 1;
  return placeInLine(snapshot.lanes.slice(0, upTo), owner, rank, snapshot.served);
}

/** 1-based ranks of distinct names, in the order `compare` sorts their items (a name's first item counts). */
function rankBy<T>(
  items: T[],
  compare: (a: T, b: T) => number,
  name: (item: T) => string,
): Map<string, number> {
  const ranks = new Map<string, number>();
  for (const item of [...items].sort(compare))
    if (!ranks.has(name(item))) ranks.set(name(item), ranks.size + 1);
  return ranks;
}
