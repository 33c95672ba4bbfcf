/**
 * How often a job crosses partitions: a deterministic simulation of the partitioned scheduler's policy
 * (docs/bench.md, scheduler, "How often a job crosses"). A job crosses when it runs on a node homed to
 * another partition than its key's, which costs the node's home a parked wait ended by a forward.
 *
 * The policy, as the code has it: a node is homed by its id and a job's partition is its key's
 * (dispatch-routing.ts `partitionOf`); a node with one slot free asks its home, which grants its own
 * line's head; with nothing there the node steals from the busier of STEAL_SAMPLES other partitions
 * drawn at random (pool-figures.ts `busierOf`), else parks at home; a job arriving where no home node is
 * parked is forwarded to the partition with the most parked polls (`parkedElsewhere`), else waits in its
 * partition's line, and a waiting line no sampled steal reaches is forwarded to the next node to park.
 * Left out: the figures' age (up to 2 s) and the forward's retry (up to 1 s), both short against a job.
 * Jobs arrive as a Poisson process at `load` (offered work / fleet slots, one slot a node), their
 * durations drawn from an exponential of mean 1.
 */
import { PriorityQueue } from "js-sdsl";
import { busierOf, type PoolSnapshot, parkedElsewhere } from "../durable-objects/dispatcher/pool-figures.ts";
import { partitionOf, STEAL_SAMPLES } from "../platform/dispatch-routing.ts";
import { seededRandom } from "../test/helpers/dialogue.ts";

/** Where the fleet's nodes are homed and its keys' jobs go: a partition index per node and per key. */
export interface CrossingFleet {
  partitions: number;
  homes: number[];
  keyPartitions: number[];
}

export interface CrossingRun {
  load: number;
  /** Jobs counted, after as many again run to reach a steady state. */
  jobs: number;
  seed: number;
}

export interface CrossingFigures {
  jobs: number;
  /** Jobs run by a node of another partition than their key's. */
  crossed: number;
  /** Jobs that found no free node and waited in their partition's line. */
  waited: number;
  crossingFraction: number;
}

/** The bench's fleets as the code partitions them: nodes `node-<i>`, keys `key-<k>` (bench-api.ts). */
export function benchFleet(nodes: number, keys: number, partitions: number): CrossingFleet {
  return {
    partitions,
    homes: Array.from({ length: nodes }, (_, i) => partitionOf(`node-${i}`, partitions)),
    keyPartitions: Array.from({ length: keys }, (_, k) => partitionOf(`key-${k}`, partitions)),
  };
}

/** The pool's figures as the policy's functions read them: each partition's waiting and parked counts. */
function snapshotOf(queued: number[], parked: number[]): PoolSnapshot {
  return {
    at: 0,
    queued: 0,
    processing: 0,
    slots: 0,
    served: 0,
    lanes: [],
    partitions: queued.map((count, partition) => ({
      partition,
      queued: count,
      parked: parked[partition] ?? 0,
    })),
  };
}

export function simulateCrossings(fleet: CrossingFleet, run: CrossingRun): CrossingFigures {
  const random = seededRandom(run.seed);
  const exponential = (mean: number) => -mean * Math.log(1 - random());
  const { partitions, homes, keyPartitions } = fleet;
  const parked: number[][] = Array.from({ length: partitions }, () => []);
  for (const [node, home] of homes.entries()) parked[home]?.push(node);
  /** Each partition's waiting jobs (whether each is counted), oldest first. */
  const lines: boolean[][] = Array.from({ length: partitions }, () => []);
  const ends = new PriorityQueue<{ at: number; node: number }>([], (a, b) => a.at - b.at);
  const figures = { jobs: 0, crossed: 0, waited: 0 };
  const meanGap = 1 / (run.load * homes.length);
  let now = 0;
  let nextArrival = exponential(meanGap);
  let arrived = 0;

  const start = (node: number, partition: number, counted: boolean) => {
    if (counted && homes[node] !== partition) figures.crossed++;
    ends.push({ at: now + exponential(1), node });
  };
  const counts = () =>
    snapshotOf(
      lines.map((line) => line.length),
      parked.map((nodes) => nodes.length),
    );

  while (figures.jobs < run.jobs || ends.size() > 0) {
    const end = ends.top();
    if (arrived < 2 * run.jobs && (end === undefined || nextArrival < end.at)) {
      now = nextArrival;
      nextArrival = now + exponential(meanGap);
      const counted = arrived++ >= run.jobs;
      if (counted) figures.jobs++;
      const partition = keyPartitions[Math.floor(random() * keyPartitions.length)] ?? 0;
      const target = parked[partition]?.length ? partition : parkedElsewhere(counts(), partition);
      const node = target === null ? undefined : parked[target]?.pop();
      if (node !== undefined) start(node, partition, counted);
      else {
        if (counted) figures.waited++;
        lines[partition]?.push(counted);
      }
      continue;
    }
    if (end === undefined) break;
    ends.pop();
    now = end.at;
    const home = homes[end.node] ?? 0;
    const others = Array.from({ length: partitions - 1 }, (_, i) => (home + 1 + i) % partitions);
    const sampled: number[] = [];
    while (sampled.length < STEAL_SAMPLES && others.length > 0)
      sampled.push(...others.splice(Math.floor(random() * others.length), 1));
    // Home first, then a sampled steal, then (parked) a forward from any partition left waiting.
    const snapshot = lines[home]?.length ? null : counts();
    const from =
      snapshot === null
        ? home
        : (busierOf(snapshot, sampled) ?? busierOf(snapshot, Array.from(lines.keys())));
    const job = from === null ? undefined : lines[from]?.shift();
    if (from !== null && job !== undefined) start(end.node, from, job);
    else parked[home]?.push(end.node);
  }
  return { ...figures, crossingFraction: figures.crossed / Math.max(figures.jobs, 1) };
}
