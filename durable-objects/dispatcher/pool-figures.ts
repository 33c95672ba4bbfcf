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
  /** Each lane's key lines, in LANES order. */
  lanes: SummaryKey[][];
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
  return { at, queued, processing, slots, served: servedRank.size, lanes };
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
