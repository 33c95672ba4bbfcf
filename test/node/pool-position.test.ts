import { describe, expect, it } from "vitest";
import {
  mergeSummaries,
  type PartitionSummary,
  placeInPool,
  poolOwner,
} from "../../durable-objects/dispatcher/pool-figures.ts";
import { LANES, type Lane } from "../../protocol/task.ts";

/**
 * A partitioned pool's positions against a brute-force simulation: random lines over several partitions,
 * the grant rule applied one task at a time over all of them as one line, and every task's simulated
 * place compared with the one read off the merged snapshot.
 */

interface Key {
  partition: number;
  owner: string;
  running: number;
  /** 0: never served. */
  servedAt: number;
  servedOrder: number;
  tasks: { lane: Lane; seq: number; id: string }[];
}

/** A small deterministic generator (mulberry32), so a failing case can be replayed by its seed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomPool(seed: number): Key[] {
  const next = random(seed);
  const int = (n: number) => Math.floor(next() * n);
  const partitions = 1 + int(4);
  const keys: Key[] = [];
  const seqs = Array.from({ length: partitions }, () => 0);
  const orders = Array.from({ length: partitions }, () => 0);
  for (let k = 0; k < 1 + int(7); k++) {
    const partition = int(partitions);
    // Few distinct serve times, so ties across partitions (and within one) come up.
    const served = next() < 0.7;
    keys.push({
      partition,
      owner: `key${k}`,
      running: int(3),
      servedAt: served ? 1000 + int(3) : 0,
      servedOrder: served ? ++orders[partition]! : 0,
      tasks: [],
    });
  }
  for (let t = 0; t < int(25); t++) {
    const key = keys[int(keys.length)]!;
    const seq = seqs[key.partition]! + 1 + int(2);
    seqs[key.partition] = seq;
    key.tasks.push({ lane: next() < 0.4 ? "interactive" : "batch", seq, id: `task${t}` });
  }
  return keys;
}

/** Serve order of a key's initial last serve, comparable across partitions: as the merge defines it. */
function servedTuple(key: Key): number[] {
  return key.servedAt === 0 ? [0] : [1, key.servedAt, key.partition, key.servedOrder];
}

function compareTuples(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Grants every waiting task one at a time under the rule, over all partitions as one line: each task's place. */
function simulate(start: Key[]): Map<string, number> {
  const keys = start.map((key) => ({ ...key, tasks: [...key.tasks], last: servedTuple(key) }));
  const places = new Map<string, number>();
  let counter = 0;
  for (const lane of LANES) {
    for (;;) {
      const turns = keys.flatMap((key) => {
        const head = key.tasks.find((task) => task.lane === lane);
        return head ? [{ key, head, turn: [key.running, ...key.last] }] : [];
      });
      if (turns.length === 0) break;
      turns.sort(
        (a, b) =>
          compareTuples(a.turn.slice(0, 1), b.turn.slice(0, 1)) ||
          compareTuples(a.key.last, b.key.last) ||
          a.head.seq - b.head.seq ||
          a.key.partition - b.key.partition,
      );
      const { key, head } = turns[0]!;
      places.set(head.id, places.size + 1);
      key.tasks.splice(key.tasks.indexOf(head), 1);
      key.running++;
      key.last = [2, ++counter];
    }
  }
  return places;
}

function summaries(keys: Key[]): Map<number, PartitionSummary> {
  const byPartition = new Map<number, PartitionSummary>();
  for (const key of keys) {
    const summary = byPartition.get(key.partition) ?? {
      queued: 0,
      processing: 0,
      slots: 0,
      parked: 0,
      lanes: [[], []],
    };
    byPartition.set(key.partition, summary);
    summary.queued += key.tasks.length;
    summary.processing += key.running;
    for (const [index, lane] of LANES.entries()) {
      const waiting = key.tasks.filter((task) => task.lane === lane);
      if (waiting.length === 0) continue;
      summary.lanes[index]!.push({
        owner: key.owner,
        running: key.running,
        waiting: waiting.length,
        servedAt: key.servedAt,
        servedOrder: key.servedOrder,
        firstSeq: waiting[0]!.seq,
      });
    }
  }
  return byPartition;
}

describe("deployment-wide positions of a partitioned pool", () => {
  it("match a brute-force simulation of the grant rule over all partitions as one line", () => {
    let compared = 0;
    for (let seed = 1; seed <= 500; seed++) {
      const keys = randomPool(seed);
      const expected = simulate(keys);
      const snapshot = mergeSummaries(summaries(keys), 0);
      for (const key of keys) {
        for (const lane of LANES) {
          const own = key.tasks.filter((task) => task.lane === lane);
          for (const [rank, task] of own.entries()) {
            const place = placeInPool(snapshot, lane, poolOwner(key.partition, key.owner), rank);
            expect(place, `seed ${seed}, ${task.id}`).toBe(expected.get(task.id));
            compared++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(2000);
  });

  it("sum the partitions' figures", () => {
    const keys = randomPool(7);
    const snapshot = mergeSummaries(summaries(keys), 0);
    expect(snapshot.queued).toBe(keys.reduce((sum, key) => sum + key.tasks.length, 0));
    expect(snapshot.processing).toBe(keys.reduce((sum, key) => sum + key.running, 0));
  });
});
