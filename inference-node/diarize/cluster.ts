/**
 * Two-stage clustering of window embeddings.
 *
 * 1. Proposal: average-linkage agglomerative clustering on cosine distance (nearest-neighbour chain,
 *    O(n^2)), cut at a deliberately low threshold so that distinct speakers stay apart; it tends to
 *    over-split one speaker by content. Above `maxItems` windows an evenly spaced subsample is
 *    clustered and the rest join the nearest centroid, which bounds time and memory on long audio.
 * 2. Decision: the least distinct pair of clusters is merged while it is either not well separated
 *    (mean per-dimension Fisher ratio of the windows, squared centroid difference over pooled
 *    within-cluster variance, below `separation`; unlike a cosine threshold this does not depend on
 *    how many speakers share the recording: a lone speaker split by content scores about 0.6,
 *    distinct voices 2 to 5 on synthetic speech) or, given per-window block evidence, not
 *    significantly different (mean per-dimension t^2 of the block features below `significance`).
 */

import { blockT2, type Evidence, evidenceByLabel, mergeEvidence } from "./evidence.ts";

/** Options of {@link clusterWindows}. */
export interface ClusterOptions {
  /** Stage 1 cut: average cosine distance above which proposal clusters stay apart. */
  threshold: number;
  /** Stage 2: clusters whose mean per-dimension Fisher ratio is below this are merged. */
  separation: number;
  /**
   * Stage 2, with `evidence`: clusters whose block features differ by a mean per-dimension t^2
   * below this are merged too (the difference is not established by that much speech).
   */
  significance?: number;
  /** Per point, the evidence of the blocks it owns (see `windowEvidence`). */
  evidence?: Evidence[];
  /**
   * How much overlapping points inflate the variance of a cluster mean (window length over hop);
   * the Fisher ratio one speaker would score by chance, overlap * (1/n_a + 1/n_b), is subtracted
   * before comparing with `separation`. Default 1 (independent points).
   */
  overlap?: number;
  /** Never fewer clusters than this (when there are that many windows). Default 1. */
  minClusters?: number;
  /** At most this many clusters, merging past the rules above if needed. Default unbounded. */
  maxClusters?: number;
  /**
   * Clusters with fewer windows are folded into the nearest larger one. Default: a tenth of the
   * windows, at least 2 and at most 4, so one 2-3 s turn of a short clip is not taken for an outlier.
   */
  minSize?: number;
  /** Windows clustered agglomeratively at most. Default 600. */
  maxItems?: number;
  /**
   * Stage 2: per point, a second evidence (the known-speaker profile of its blocks), and a rule that,
   * given every cluster's sum of it, says which two clusters stay apart whatever the other tests say
   * (reference-anchors.ts), unless there are more than `maxClusters`.
   */
  keepApart?: {
    evidence: Evidence[];
    rule(clusters: ReadonlyMap<number, Evidence>): (a: number, b: number) => boolean;
  };
}

/** Weight, in windows, of the recording-wide within-cluster variance added to every pair's. */
const PRIOR_WINDOWS = 20;

/**
 * Cosine distance of two vectors (0 for identical directions, 2 for opposite; 1 if either is zero).
 *
 * @example
 * cosineDistance(new Float64Array([1, 0]), new Float64Array([0, 1])); // 1
 */
export function cosineDistance(a: Float64Array, b: Float64Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i] ?? 0, b[i] ?? 0];
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 1 : 1 - dot / Math.sqrt(na * nb);
}

/**
 * Average-linkage dendrogram by the nearest-neighbour chain algorithm, cut where merges exceed
 * `threshold` (respecting the cluster bounds); returns a cluster id per point.
 */
function averageLinkage(points: Float64Array[], threshold: number, minClusters: number, maxClusters: number) {
  const n = points.length;
  const dist = new Float64Array(n * n);
  for (const [i, p] of points.entries()) {
    for (let j = i + 1; j < n; j++) {
      const d = cosineDistance(p, points[j] ?? p);
      dist[i * n + j] = d;
      dist[j * n + i] = d;
    }
  }
  const at = (i: number, j: number) => dist[i * n + j] ?? 0;
  const size = new Float64Array(n).fill(1);
  const alive = new Uint8Array(n).fill(1);
  const merges: [number, number, number][] = []; // [height, a, b]; b is folded into a
  const chain: number[] = [];
  for (let remaining = n; remaining > 1; remaining--) {
    if (chain.length === 0) chain.push(alive.indexOf(1));
    let [a, b] = [-1, -1];
    while (a < 0) {
      const top = chain[chain.length - 1] ?? 0;
      const below = chain[chain.length - 2] ?? -1;
      let next = below;
      for (let j = 0; j < n; j++) {
        if (alive[j] && j !== top && (next < 0 || at(top, j) < at(top, next))) next = j;
      }
      if (next === below)
        [a, b] = [below, top]; // reciprocal nearest neighbours: merge them
      else chain.push(next);
    }
    chain.length -= 2;
    merges.push([at(a, b), a, b]);
    const [sa, sb] = [size[a] ?? 1, size[b] ?? 1];
    for (let k = 0; k < n; k++) {
      if (!alive[k] || k === a || k === b) continue;
      const d = (sa * at(a, k) + sb * at(b, k)) / (sa + sb);
      dist[a * n + k] = d;
      dist[k * n + a] = d;
    }
    size[a] = sa + sb;
    alive[b] = 0;
  }
  // Average linkage is reducible, so applying the merges in height order rebuilds the same tree.
  merges.sort((x, y) => x[0] - y[0]);
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const root = (i: number): number => {
    const p = parent[i] ?? i;
    if (p === i) return i;
    const r = root(p);
    parent[i] = r;
    return r;
  };
  let clusters = n;
  for (const [height, a, b] of merges) {
    if (clusters <= minClusters || (height > threshold && clusters <= maxClusters)) break;
    parent[root(b)] = root(a);
    clusters--;
  }
  return points.map((_, i) => root(i));
}

/** Count, sum and sum of squares of a cluster's points. */
interface Moments {
  n: number;
  sum: Float64Array;
  sq: Float64Array;
}

function moments(points: Float64Array[], labels: number[]): Map<number, Moments> {
  const out = new Map<number, Moments>();
  for (const [i, p] of points.entries()) {
    const label = labels[i] ?? 0;
    let m = out.get(label);
    if (!m) {
      m = { n: 0, sum: new Float64Array(p.length), sq: new Float64Array(p.length) };
      out.set(label, m);
    }
    m.n++;
    for (const [d, x] of p.entries()) {
      m.sum[d] = (m.sum[d] ?? 0) + x;
      m.sq[d] = (m.sq[d] ?? 0) + x * x;
    }
  }
  return out;
}

/**
 * Mean over dimensions of (difference of means)^2 / pooled within-cluster variance. The pooled
 * variance is shrunk towards `prior` (the recording's within-cluster variance) so a small, tight
 * cluster of a few adjacent windows does not look well separated just because it has little spread.
 */
function fisherSeparation(a: Moments, b: Moments, prior: Float64Array): number {
  let total = 0;
  for (let d = 0; d < a.sum.length; d++) {
    const [ma, mb] = [(a.sum[d] ?? 0) / a.n, (b.sum[d] ?? 0) / b.n];
    const scatter =
      (a.sq[d] ?? 0) - a.n * ma * ma + (b.sq[d] ?? 0) - b.n * mb * mb + PRIOR_WINDOWS * (prior[d] ?? 0);
    total += (ma - mb) ** 2 / Math.max(scatter / (a.n + b.n + PRIOR_WINDOWS), 1e-9);
  }
  return total / a.sum.length;
}

/** Within-cluster variance per dimension, pooled over all clusters. */
function pooledVariance(stats: Map<number, Moments>, dims: number): Float64Array {
  const out = new Float64Array(dims);
  let total = 0;
  for (const m of stats.values()) {
    total += m.n;
    for (let d = 0; d < dims; d++) out[d] = (out[d] ?? 0) + (m.sq[d] ?? 0) - (m.sum[d] ?? 0) ** 2 / m.n;
  }
  return out.map((v) => v / total);
}

/** Index of the centroid nearest to `p` by cosine distance. */
function nearest(p: Float64Array, centroids: Float64Array[]): number {
  let best = 0;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const [k, c] of centroids.entries()) {
    const distance = cosineDistance(p, c);
    if (distance < bestDistance) [best, bestDistance] = [k, distance];
  }
  return best;
}

/**
 * Clusters `points` (window embeddings in time order); returns a cluster index per point, numbered
 * by first appearance.
 *
 * @example
 * const labels = clusterWindows(embeddings, { threshold: 0.9, separation: 1.3, maxClusters: 8 });
 */
export function clusterWindows(points: Float64Array[], options: ClusterOptions): Int32Array {
  const minClusters = Math.max(1, options.minClusters ?? 1);
  const maxClusters = options.maxClusters ?? Number.POSITIVE_INFINITY;
  const maxItems = options.maxItems ?? 600;
  const stride = Math.max(1, points.length / maxItems);
  const sample = points.filter((_, i) => Math.floor(Math.ceil(i / stride) * stride) === i);
  const proposal = moments(sample, averageLinkage(sample, options.threshold, minClusters, maxClusters));
  // Every point (sampled or not) joins the proposal cluster with the nearest centroid; then clusters
  // smaller than minSize (outliers, stray windows) are folded into the nearest remaining one.
  const ranked = [...proposal.values()].sort((a, b) => b.n - a.n);
  const minSize = options.minSize ?? Math.min(4, Math.max(2, Math.ceil(sample.length / 10)));
  const kept = ranked.filter((m, rank) => rank < minClusters || m.n >= minSize);
  const keptCentroids = kept.map((m) => m.sum);
  const labels = points.map((p) => nearest(p, keptCentroids));
  let stats = moments(points, labels);
  const prior = pooledVariance(stats, points[0]?.length ?? 0);
  const { evidence, significance = Number.POSITIVE_INFINITY, overlap = 1 } = options;
  // Two clusters are distinct speakers only when they are both well separated (Fisher ratio less
  // what one speaker would score at these sizes: it does not grow with duration) and their
  // difference is established by the speech at hand (block t^2, which grows with duration). On long
  // audio the t^2 is large and the Fisher ratio decides; on a short clip a few overlapping windows
  // make any split look separated, and the t^2 decides.
  const blocks = evidence ? evidenceByLabel(evidence, labels) : null;
  const { keepApart } = options;
  const profiles = keepApart ? evidenceByLabel(keepApart.evidence, labels) : null;
  while (stats.size > minClusters) {
    let pair: [number, number] | null = null;
    let lowest = Number.POSITIVE_INFINITY;
    const apart = profiles && stats.size <= maxClusters ? keepApart?.rule(profiles) : undefined;
    for (const [a, ma] of stats) {
      for (const [b, mb] of stats) {
        if (a >= b) continue;
        if (apart?.(a, b)) continue;
        const separated = fisherSeparation(ma, mb, prior) - overlap * (1 / ma.n + 1 / mb.n);
        const [ea, eb] = [blocks?.get(a), blocks?.get(b)];
        const tested = ea && eb ? blockT2(ea, eb) / significance : Number.POSITIVE_INFINITY;
        const distinctness = Math.min(separated / options.separation, tested);
        if (distinctness < lowest) [lowest, pair] = [distinctness, [a, b]];
      }
    }
    if (!pair || (lowest >= 1 && stats.size <= maxClusters)) break;
    const [a, b] = pair;
    for (const [i, label] of labels.entries()) if (label === b) labels[i] = a;
    stats = moments(points, labels);
    blocks?.set(a, mergeEvidence(blocks.get(a), blocks.get(b)));
    blocks?.delete(b);
    profiles?.set(a, mergeEvidence(profiles.get(a), profiles.get(b)));
    profiles?.delete(b);
  }
  const renumber = new Map<number, number>();
  return Int32Array.from(labels, (c) => {
    const known = renumber.get(c) ?? renumber.size;
    renumber.set(c, known);
    return known;
  });
}
