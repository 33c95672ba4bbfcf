import { describe, expect, it } from "vitest";
import { type BlockStats, BlockStore, windowEmbeddings } from "../../inference-node/diarize/blocks.ts";
import { clusterWindows, cosineDistance } from "../../inference-node/diarize/cluster.ts";
import { buildTurns, resegment } from "../../inference-node/diarize/reseg.ts";
import { changeSegments } from "../../inference-node/diarize/segment.ts";

/** Deterministic standard normal samples (Box-Muller over an LCG). */
function gaussian(seed: number): () => number {
  let state = seed;
  const uniform = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return (state + 1) / (2 ** 32 + 2);
  };
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

/** Points around `centres[label]` with unit noise, one per entry of `labels`. */
function points(centres: number[][], labels: number[], seed = 1): Float64Array[] {
  const noise = gaussian(seed);
  return labels.map((label) => Float64Array.from(centres[label]!, (c) => c + noise()));
}

/** Labels in runs of `run`, cycling through `count` clusters: 0,0,..,1,1,..,2,2,..,0,0,... */
const runs = (total: number, run: number, count: number) =>
  Array.from({ length: total }, (_, i) => Math.floor(i / run) % count);

/** Block statistics of frames drawn around per-block means (`dims` dims, 25 voiced frames each). */
function blockStats(blockMeans: number[][], seed = 1): BlockStats {
  const noise = gaussian(seed);
  const dims = blockMeans[0]!.length;
  const counts = new Float64Array(blockMeans.length);
  const sums = new Float64Array(blockMeans.length * dims);
  const sumsq = new Float64Array(blockMeans.length * dims);
  for (const [b, mean] of blockMeans.entries()) {
    counts[b] = mean.length === 0 ? 0 : 25;
    for (let f = 0; f < 25; f++) {
      for (let d = 0; d < dims; d++) {
        const x = mean[d]! + noise();
        sums[b * dims + d] = sums[b * dims + d]! + x;
        sumsq[b * dims + d] = sumsq[b * dims + d]! + x * x;
      }
    }
  }
  const none = () => new Float64Array(blockMeans.length);
  return { dims, counts, sums, sumsq, pitch: { counts: none(), sums: none(), sumsq: none() } };
}

describe("cosineDistance", () => {
  it("is 0 for parallel, 1 for orthogonal, 2 for opposite vectors and 1 against zero", () => {
    const v = (...x: number[]) => Float64Array.from(x);
    expect(cosineDistance(v(1, 2), v(2, 4))).toBeCloseTo(0, 12);
    expect(cosineDistance(v(1, 0), v(0, 3))).toBeCloseTo(1, 12);
    expect(cosineDistance(v(1, 1), v(-1, -1))).toBeCloseTo(2, 12);
    expect(cosineDistance(v(0, 0), v(1, 1))).toBe(1);
  });
});

describe("clusterWindows", () => {
  const centres = [
    [2, -2, 2, -2, 2, -2, 2, -2],
    [-2, -2, 2, 2, -2, -2, 2, 2],
    [2, 2, -2, -2, -2, 2, 2, -2],
  ];
  const options = { threshold: 0.9, separation: 1.3 };

  it("recovers three separable clusters, numbered by first appearance", () => {
    const truth = runs(180, 10, 3);
    expect([...clusterWindows(points(centres, truth), options)]).toEqual(truth);
  });

  it("keeps one blob as one cluster although cosine proposals split it", () => {
    const blob = points([[0, 0, 0, 0, 0, 0, 0, 0]], new Array(200).fill(0));
    expect(new Set(clusterWindows(blob, options)).size).toBe(1);
    expect(new Set(clusterWindows(blob, { ...options, minClusters: 2 })).size).toBe(2);
  });

  it("honours maxClusters by merging the least separated pair", () => {
    const labels = clusterWindows(points(centres, runs(180, 10, 3)), { ...options, maxClusters: 2 });
    expect(new Set(labels).size).toBe(2);
  });

  it("clusters a subsample of long input and assigns the rest to the nearest cluster", () => {
    const truth = runs(3000, 25, 3);
    const labels = clusterWindows(points(centres, truth, 5), { ...options, maxItems: 120 });
    expect(new Set(labels).size).toBe(3);
    // A few noisy points may sit nearer another centroid; labels are numbered like the truth.
    expect(truth.filter((t, i) => labels[i] !== t).length).toBeLessThan(15);
  });

  it("folds a couple of outliers into the nearest real cluster", () => {
    const truth = runs(120, 10, 2);
    const data = points(centres, truth);
    data.push(
      Float64Array.from(centres[2]!, (c) => 3 * c),
      Float64Array.from(centres[2]!, (c) => 3 * c + 0.1),
    );
    expect(new Set(clusterWindows(data, options)).size).toBe(2);
  });
});

describe("changeSegments", () => {
  const a = [1, 0, -1, 0.5];
  const b = [-1, 1, 0.5, -0.5];

  it("cuts at a change of distribution and nowhere in homogeneous speech", () => {
    const stats = blockStats([...new Array(20).fill(a), ...new Array(20).fill(b)]);
    const options = { window: 6, lambda: 2, minVoiced: 40 };
    const segments = changeSegments(stats, [[0, 40]], options);
    expect(segments).toHaveLength(2);
    expect(Math.abs(segments[0]![1] - 20)).toBeLessThanOrEqual(1);
    expect(changeSegments(blockStats(new Array(40).fill(a)), [[0, 40]], options)).toEqual([[0, 40]]);
  });

  it("keeps interval bounds and never compares across them", () => {
    const stats = blockStats([...new Array(10).fill(a), ...new Array(10).fill(b)]);
    expect(
      changeSegments(
        stats,
        [
          [0, 10],
          [10, 20],
        ],
        { window: 6, lambda: 2, minVoiced: 40 },
      ),
    ).toEqual([
      [0, 10],
      [10, 20],
    ]);
  });
});

describe("BlockStore", () => {
  it("normalizes stored sums exactly as normalizing the frames would (CMVN)", () => {
    const frames = [
      [1, 10],
      [3, 14],
      [2, 9],
      [6, 11],
    ];
    const store = new BlockStore(2);
    for (const pair of [frames.slice(0, 3), frames.slice(3)]) {
      const sums = Float64Array.from([0, 1], (d) => pair.reduce((s, f) => s + f[d]!, 0));
      const sumsq = Float64Array.from([0, 1], (d) => pair.reduce((s, f) => s + f[d]! ** 2, 0));
      store.append(pair.length, sums, sumsq, [pair.length, 5 * pair.length, 25 * pair.length]);
    }
    const stats = store.normalized()!;
    for (let d = 0; d < 2; d++) {
      const values = frames.map((f) => f[d]!);
      const mean = values.reduce((s, x) => s + x, 0) / 4;
      const std = Math.sqrt(values.reduce((s, x) => s + (x - mean) ** 2, 0) / 4);
      const z = values.map((x) => (x - mean) / std);
      expect(stats.sums[d]).toBeCloseTo(z[0]! + z[1]! + z[2]!, 5);
      expect(stats.sumsq[2 + d]).toBeCloseTo(z[3]! ** 2, 5);
    }
    expect([...stats.counts]).toEqual([3, 1]);
    // Log pitch is kept as stored (not normalized): its absolute differences are musical intervals.
    expect([...stats.pitch.counts]).toEqual([3, 1]);
    expect([...stats.pitch.sums]).toEqual([15, 5]);
  });

  it("returns null when nothing was voiced and allocates whole pages", () => {
    const store = new BlockStore(2);
    store.append(0, new Float64Array(2), new Float64Array(2), [0, 0, 0]);
    expect(store.normalized()).toBeNull();
    const page = store.bytes;
    expect(page).toBe(256 * 8 * 4);
    for (let i = 0; i < 256; i++) store.append(1, new Float64Array(2), new Float64Array(2), [0, 0, 0]);
    expect(store.bytes).toBe(2 * page);
  });
});

describe("windowEmbeddings", () => {
  it("slides inside segments, aligns the last window to the segment end and skips sparse windows", () => {
    const stats = blockStats([...new Array(9).fill([0, 0]), [], [], [], ...new Array(4).fill([1, 1])]);
    const windows = windowEmbeddings(
      stats,
      [
        [0, 9],
        [9, 16],
      ],
      6,
      2,
      80,
    );
    expect(windows.map((w) => [w.firstBlock, w.blocks])).toEqual([
      [0, 6],
      [2, 6],
      [3, 6],
      [10, 6],
    ]);
    // Means and spreads of both cepstra, then the mean log pitch.
    expect(windows[0]!.embedding).toHaveLength(5);
  });
});

describe("resegment and buildTurns", () => {
  const a = [1, 0, -1, 0.5];
  const b = [-1, 1, 0.5, -0.5];

  it("repairs noisy initial labels with the speakers' Gaussians and a switch penalty", () => {
    const truth = [...new Array(16).fill(0), ...new Array(12).fill(1), ...new Array(16).fill(0)];
    const stats = blockStats(truth.map((k) => (k === 0 ? a : b)));
    const noisy = Int32Array.from(truth, (k, i) => (i % 5 === 2 ? 1 - k : k));
    const refined = resegment(stats, noisy, 2, { switchPenalty: 100, iterations: 2 });
    expect([...refined]).toEqual(truth);
  });

  it("smooths away a lone block of another speaker only when switching is penalized", () => {
    const truth = [...new Array(15).fill(0), 1, ...new Array(15).fill(0), ...new Array(15).fill(1)];
    const stats = blockStats(truth.map((k) => (k === 0 ? a : b)));
    const labels = Int32Array.from(truth);
    const lone = (switchPenalty: number) => resegment(stats, labels, 2, { switchPenalty, iterations: 1 })[15];
    expect(lone(0)).toBe(1);
    expect(lone(300)).toBe(0);
  });

  it("leaves blocks without voiced frames unlabelled", () => {
    const stats = blockStats([a, [], b]);
    expect([
      ...resegment(stats, Int32Array.from([0, -1, 1]), 2, { switchPenalty: 1, iterations: 1 }),
    ]).toEqual([0, -1, 1]);
  });

  it("cuts intervals at label changes, fills unlabelled blocks, joins short same-speaker gaps", () => {
    const labels = Int32Array.from([-1, 3, 3, -1, 5, 5, 5, 5, 3, 3]);
    // Frames of 10 ms, blocks of 25 frames: block b spans [0.25 b, 0.25 (b + 1)) s.
    const turns = buildTurns(
      [
        [10, 60],
        [70, 150],
        [160, 240],
      ],
      labels,
      25,
      0.01,
      0.5,
    );
    expect(turns).toEqual([
      { start: 0.1, end: 1, speaker: "SPEAKER_00" },
      { start: 1, end: 2, speaker: "SPEAKER_01" },
      { start: 2, end: 2.4, speaker: "SPEAKER_00" },
    ]);
    expect(
      buildTurns(
        [
          [10, 60],
          [200, 240],
        ],
        Int32Array.from(new Array(10).fill(2)),
        25,
        0.01,
        0.5,
      ),
    ).toHaveLength(2);
  });
});
