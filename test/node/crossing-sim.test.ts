import { describe, expect, it } from "vitest";
import { benchFleet, simulateCrossings } from "../../bench/crossing-sim.ts";

const repeat = (count: number, value: number) => Array.from({ length: count }, () => value);

describe("crossing simulation (bench/crossing-sim.ts)", () => {
  it("crosses nothing with one partition, and queues as M/M/c does (Erlang C: 10 servers at 0.9 wait 0.668 of the time)", () => {
    const figures = simulateCrossings(
      { partitions: 1, homes: repeat(10, 0), keyPartitions: repeat(10, 0) },
      { load: 0.9, jobs: 100_000, seed: 7 },
    );
    expect(figures.crossed).toBe(0);
    expect(figures.waited / figures.jobs).toBeGreaterThan(0.64);
    expect(figures.waited / figures.jobs).toBeLessThan(0.7);
  });

  it("runs every job of a partition with no home node on another's nodes", () => {
    // Every node at home in partition 0, the keys spread over all four: three jobs in four cross.
    const figures = simulateCrossings(
      { partitions: 4, homes: repeat(8, 0), keyPartitions: [0, 1, 2, 3] },
      { load: 0.5, jobs: 40_000, seed: 7 },
    );
    expect(figures.crossingFraction).toBeGreaterThan(0.72);
    expect(figures.crossingFraction).toBeLessThan(0.78);
  });

  it("prefers a home node: with a free one in every partition at a light load almost no job crosses", () => {
    const homes = Array.from({ length: 400 }, (_, i) => i % 4);
    const figures = simulateCrossings(
      { partitions: 4, homes, keyPartitions: [0, 1, 2, 3] },
      { load: 0.25, jobs: 40_000, seed: 7 },
    );
    expect(figures.crossingFraction).toBeLessThan(0.001);
  });

  it("is deterministic for a seed, and homes the bench's fleet as the code partitions ids", () => {
    const fleet = benchFleet(10, 10, 4);
    expect(fleet.homes).toHaveLength(10);
    expect(new Set(fleet.homes).size).toBe(4);
    const run = { load: 0.9, jobs: 20_000, seed: 3 };
    expect(simulateCrossings(fleet, run)).toEqual(simulateCrossings(fleet, run));
    expect(simulateCrossings(fleet, { ...run, seed: 4 })).not.toEqual(simulateCrossings(fleet, run));
  });
});
