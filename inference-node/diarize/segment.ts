/**
 * Speaker-change detection inside speech intervals with the Bayesian Information Criterion. At every
 * block boundary the frames of the neighbouring windows are modelled either by one diagonal Gaussian
 * or by one per side; ΔBIC is the log-likelihood gain of the split minus a complexity penalty. Peaks
 * above zero become change points, so later windows never straddle two speakers there. Block prefix
 * sums make each test O(dims), the whole pass linear in the audio length.
 */
import type { BlockStats } from "./blocks.ts";

/** Options of {@link changeSegments}; sizes in blocks, counts in frames. */
export interface SegmentOptions {
  /** Blocks on each side of a candidate change. */
  window: number;
  /** Multiplier of the BIC penalty; higher finds fewer changes. */
  lambda: number;
  /** Both sides need at least this many voiced frames to be compared. */
  minVoiced: number;
}

/**
 * Splits each `[firstBlock, endBlock)` interval at its ΔBIC peaks; returns the pieces in order.
 *
 * @example
 * const segments = changeSegments(stats, [[0, 40]], { window: 6, lambda: 2, minVoiced: 40 });
 */
export function changeSegments(
  stats: BlockStats,
  intervals: [number, number][],
  options: SegmentOptions,
): [number, number][] {
  const { dims, counts, sums, sumsq } = stats;
  const blocks = counts.length;
  const n = new Float64Array(blocks + 1);
  const s = new Float64Array((blocks + 1) * dims);
  const q = new Float64Array((blocks + 1) * dims);
  for (let b = 0; b < blocks; b++) {
    n[b + 1] = (n[b] ?? 0) + (counts[b] ?? 0);
    for (let d = 0; d < dims; d++) {
      s[(b + 1) * dims + d] = (s[b * dims + d] ?? 0) + (sums[b * dims + d] ?? 0);
      q[(b + 1) * dims + d] = (q[b * dims + d] ?? 0) + (sumsq[b * dims + d] ?? 0);
    }
  }
  const frames = (from: number, to: number) => (n[to] ?? 0) - (n[from] ?? 0);
  // N * log|Σ| of the frames of blocks [from, to) under one diagonal Gaussian.
  const scatter = (from: number, to: number) => {
    const count = frames(from, to);
    let logDet = 0;
    for (let d = 0; d < dims; d++) {
      const mean = ((s[to * dims + d] ?? 0) - (s[from * dims + d] ?? 0)) / count;
      const square = ((q[to * dims + d] ?? 0) - (q[from * dims + d] ?? 0)) / count;
      logDet += Math.log(Math.max(square - mean * mean, 1e-4));
    }
    return count * logDet;
  };
  const out: [number, number][] = [];
  for (const [first, end] of intervals) {
    const peaks: [number, number][] = []; // [ΔBIC, block]
    for (let b = first + 1; b < end; b++) {
      const [from, to] = [Math.max(first, b - options.window), Math.min(end, b + options.window)];
      if (frames(from, b) < options.minVoiced || frames(b, to) < options.minVoiced) continue;
      // λ · ½ · (2·dims parameters: means and variances) · log N
      const penalty = options.lambda * dims * Math.log(frames(from, to));
      const gain = 0.5 * (scatter(from, to) - scatter(from, b) - scatter(b, to)) - penalty;
      if (gain > 0) peaks.push([gain, b]);
    }
    // Strongest peaks first; ΔBIC stays high for a window's width around a change, so a weaker peak
    // within one window of a kept cut is the same change seen off-centre.
    peaks.sort((x, y) => y[0] - x[0]);
    const cuts: number[] = [];
    for (const [, b] of peaks) if (cuts.every((c) => Math.abs(c - b) >= options.window)) cuts.push(b);
    cuts.sort((x, y) => x - y);
    let start = first;
    for (const cut of [...cuts, end]) {
      out.push([start, cut]);
      start = cut;
    }
  }
  return out;
}
