import { describe, expect, it } from "vitest";
import type { BlockStats, Window } from "../../inference-node/diarize/blocks.ts";
import { clusterWindows } from "../../inference-node/diarize/cluster.ts";
import {
  blockOwners,
  blockT2,
  type Evidence,
  evidenceByLabel,
  windowEvidence,
} from "../../inference-node/diarize/evidence.ts";

/** Deterministic standard normal samples (Box-Muller over an LCG). */
function gaussian(seed: number): () => number {
  let state = seed;
  const uniform = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return (state + 1) / (2 ** 32 + 2);
  };
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

/** Evidence of `blocks` samples of `features` features around `mean` with unit spread. */
function sample(blocks: number, features: number, mean: number, noise: () => number): Evidence {
  const e = {
    n: new Float64Array(features),
    sum: new Float64Array(features),
    sq: new Float64Array(features),
  };
  for (let b = 0; b < blocks; b++) {
    for (let f = 0; f < features; f++) {
      const x = mean + noise();
      e.n[f]! += 1;
      e.sum[f]! += x;
      e.sq[f]! += x * x;
    }
  }
  return e;
}

/** Block statistics of one cepstrum: `voiced` frames per block, all at `value`; pitch as given. */
function stats(voiced: number[], value: number, pitched: number[], logF0: number): BlockStats {
  const counts = Float64Array.from(voiced);
  return {
    dims: 1,
    counts,
    sums: Float64Array.from(voiced, (n) => n * value),
    sumsq: Float64Array.from(voiced, (n) => n * value * value),
    pitch: {
      counts: Float64Array.from(pitched),
      sums: Float64Array.from(pitched, (n) => n * logF0),
      sumsq: Float64Array.from(pitched, (n) => n * logF0 * logF0),
    },
  };
}

const window = (firstBlock: number, blocks: number): Window => ({
  firstBlock,
  blocks,
  embedding: new Float64Array(3),
});

describe("blockOwners", () => {
  it("gives each voiced block to the covering window with the nearest centre", () => {
    const s = stats([25, 25, 25, 25, 0, 25, 25, 25, 25, 25], 0, new Array(10).fill(0), 0);
    // Centres at 3 and 5: blocks 0-3 are nearer the first, 4-7 the second (ties keep the first).
    expect([...blockOwners(s, [window(0, 6), window(2, 6)])]).toEqual([0, 0, 0, 0, -1, 1, 1, 1, -1, -1]);
  });
});

describe("windowEvidence", () => {
  it("counts only blocks voiced and pitched enough, as mean, spread and log pitch", () => {
    const s = stats([25, 4, 25, 25], 2, [20, 20, 3, 20], Math.log(200));
    const [e] = windowEvidence(s, Int32Array.from([0, 0, 0, -1]), 1, 10, 5);
    expect([...e!.n]).toEqual([2, 2, 2]); // block 1 is too sparsely voiced, block 2 barely pitched
    expect(e!.sum[0]).toBeCloseTo(4, 12); // two block means of 2
    expect(e!.sum[1]).toBeCloseTo(0, 6); // constant frames: no spread
    expect(e!.sum[2]).toBeCloseTo(2 * Math.log(200), 12);
  });
});

describe("blockT2", () => {
  const noise = gaussian(11);

  it("stays near 1 for two samples of one distribution and grows with a real difference", () => {
    const same = Array.from({ length: 20 }, () =>
      blockT2(sample(20, 30, 0, noise), sample(20, 30, 0, noise)),
    );
    const average = same.reduce((a, t) => a + t, 0) / same.length;
    expect(average).toBeGreaterThan(0.7);
    expect(average).toBeLessThan(1.3);
    const shifted = blockT2(sample(20, 30, 0, noise), sample(20, 30, 1, noise));
    expect(shifted).toBeGreaterThan(5);
  });

  it("weighs a difference by the amount of speech behind it", () => {
    const few = blockT2(sample(4, 30, 0, noise), sample(4, 30, 0.8, noise));
    const many = blockT2(sample(40, 30, 0, noise), sample(40, 30, 0.8, noise));
    expect(many).toBeGreaterThan(5 * few);
  });

  it("leaves out features with fewer than two blocks on a side", () => {
    const a = sample(10, 2, 0, noise);
    const b = sample(10, 2, 3, noise);
    const first = (e: Evidence) => ({
      n: e.n.subarray(0, 1),
      sum: e.sum.subarray(0, 1),
      sq: e.sq.subarray(0, 1),
    });
    a.n[1] = 1;
    expect(blockT2(a, b)).toBeCloseTo(blockT2(first(a), first(b)), 12);
    expect(blockT2(sample(1, 3, 0, noise), sample(1, 3, 5, noise))).toBe(0);
  });

  it("adds evidence up per label", () => {
    const parts = [sample(3, 2, 0, noise), sample(5, 2, 0, noise), sample(7, 2, 0, noise)];
    const byLabel = evidenceByLabel(parts, [4, 9, 4]);
    expect([...byLabel.get(4)!.n]).toEqual([10, 10]);
    expect(byLabel.get(4)!.sum[0]).toBeCloseTo(parts[0]!.sum[0]! + parts[2]!.sum[0]!, 12);
  });
});

describe("clusterWindows with block evidence", () => {
  const noise = gaussian(5);
  // Two tight groups of 6 points far apart in embedding space: well separated by the Fisher ratio.
  const centres = [
    [3, -3, 3, -3, 3, -3],
    [-3, 3, -3, 3, -3, 3],
  ];
  const labels = [0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1];
  const points = labels.map((k) => Float64Array.from(centres[k]!, (c) => c + 0.3 * noise()));
  const options = { threshold: 0.9, separation: 1.3, significance: 3.5 };

  it("keeps two groups apart when their blocks differ significantly", () => {
    const evidence = labels.map((k) => sample(4, 10, 2 * k, noise));
    expect([...clusterWindows(points, { ...options, evidence })]).toEqual(labels);
  });

  it("merges them when their blocks do not establish a difference", () => {
    const evidence = labels.map(() => sample(4, 10, 0, noise));
    expect(new Set(clusterWindows(points, { ...options, evidence })).size).toBe(1);
    expect(new Set(clusterWindows(points, options)).size).toBe(2);
  });

  it("discounts the separation that overlapping points show by chance", () => {
    // Two groups of 6 whose mean Fisher ratio is 3 (a gap of 0.55 over a spread of 0.1 in one of ten
    // dimensions): apart as independent points, but 8x overlapping points of one speaker would show
    // 8 * (1/6 + 1/6) = 2.7 by chance, which leaves too little to tell them apart.
    const near = labels.map((k, i) => {
      const p = new Float64Array(10);
      p[0] = 1;
      const rank = labels.slice(0, i).filter((other) => other === k).length; // alternate within each group
      p[1] = 0.55 * k + (rank % 2 === 0 ? -0.1 : 0.1);
      return p;
    });
    const options = { threshold: 0.03, separation: 1.3, minSize: 2 };
    expect([...clusterWindows(near, options)]).toEqual(labels);
    expect(new Set(clusterWindows(near, { ...options, overlap: 8 })).size).toBe(1);
  });
});
