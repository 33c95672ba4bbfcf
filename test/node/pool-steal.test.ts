import { describe, expect, it } from "vitest";
import {
  busierOf,
  mergeSummaries,
  type PartitionSummary,
  parkedElsewhere,
} from "../../durable-objects/dispatcher/pool-figures.ts";

/** A partition's summary with `queued` tasks waiting and `parked` polls (no key lines: not read here). */
const summary = (queued: number, parked: number): PartitionSummary => ({
  queued,
  processing: 0,
  slots: 0,
  parked,
  lanes: [[], []],
});

/** The pool's figures of partitions 0..3 as [queued, parked] each. */
const pool = (...loads: [number, number][]) =>
  mergeSummaries(new Map(loads.map(([queued, parked], p) => [p, summary(queued, parked)])), 0);

describe("where a partitioned pool's work and idle nodes meet", () => {
  it("sends a node to the busier of the partitions its ask sampled, and nowhere when neither has work", () => {
    const figures = pool([0, 1], [3, 0], [5, 0], [9, 0]);
    expect(busierOf(figures, [1, 2])).toBe(2);
    expect(busierOf(figures, [2, 1])).toBe(2);
    // Partition 3's line is the pool's longest, but this ask did not sample it.
    expect(busierOf(figures, [1])).toBe(1);
    expect(busierOf(pool([0, 0], [0, 0], [0, 0], [4, 0]), [1, 2])).toBeNull();
    expect(busierOf(figures, [])).toBeNull();
    // A tie goes to the lower partition, whatever the order sampled.
    expect(busierOf(pool([0, 0], [2, 0], [2, 0], [0, 0]), [2, 1])).toBe(1);
  });

  it("forwards work to the partition with the most parked polls, never to itself", () => {
    expect(parkedElsewhere(pool([1, 0], [0, 2], [0, 5], [0, 1]), 0)).toBe(2);
    expect(parkedElsewhere(pool([1, 0], [0, 2], [0, 5], [0, 1]), 2)).toBe(1);
    expect(parkedElsewhere(pool([1, 3], [0, 0], [0, 0], [0, 0]), 0)).toBeNull();
  });
});
