/**
 * Block evidence for the significance test between clusters. Overlapping 1.5 s windows are good
 * clustering items but poor samples: neighbours share most of their frames, and a short clip has
 * fewer windows than an embedding has dimensions, so any split of them looks separated. The
 * 0.25 s blocks under the windows are nearly independent samples instead: each block that a window
 * owns contributes its features (mean and spread of the normalized cepstra of its voiced frames, and
 * the mean normalized log pitch of its pitched frames), and a two-sample t^2 per feature says whether
 * two clusters differ by more than their own block-to-block variation allows.
 */
import type { BlockStats, Window } from "./blocks.ts";

/** Per-feature count, sum and sum of squares of block features (counts differ: not every block has a pitch). */
export interface Evidence {
  n: Float64Array;
  sum: Float64Array;
  sq: Float64Array;
}

const emptyEvidence = (features: number): Evidence => ({
  n: new Float64Array(features),
  sum: new Float64Array(features),
  sq: new Float64Array(features),
});

/**
 * The window that owns each block: of the windows covering a voiced block, the one whose centre is
 * nearest; -1 for blocks without voiced frames or outside every window. Owned blocks partition the
 * covered speech, so per-window evidence adds up to per-cluster evidence without double counting.
 *
 * @example
 * const owners = blockOwners(stats, windows); // owners[b] = index into windows, or -1
 */
export function blockOwners(stats: BlockStats, windows: Window[]): Int32Array {
  const { counts } = stats;
  const owners = new Int32Array(counts.length).fill(-1);
  const nearest = new Float64Array(counts.length).fill(Number.POSITIVE_INFINITY);
  for (const [i, w] of windows.entries()) {
    for (let b = w.firstBlock; b < w.firstBlock + w.blocks; b++) {
      const distance = Math.abs(w.firstBlock + w.blocks / 2 - (b + 0.5));
      if ((counts[b] ?? 0) > 0 && distance < (nearest[b] ?? 0)) [nearest[b], owners[b]] = [distance, i];
    }
  }
  return owners;
}

/**
 * Per window, the evidence of the blocks it owns: 2 * dims cepstral features from blocks with at
 * least `minVoiced` voiced frames (a spread over fewer is mostly noise), and the log pitch from
 * blocks with at least `minPitched` pitched frames.
 *
 * @example
 * const evidence = windowEvidence(stats, blockOwners(stats, windows), windows.length, 10, 5);
 */
export function windowEvidence(
  stats: BlockStats,
  owners: Int32Array,
  windows: number,
  minVoiced: number,
  minPitched: number,
): Evidence[] {
  const { dims, counts, sums, sumsq, pitch } = stats;
  const out = Array.from({ length: windows }, () => emptyEvidence(2 * dims + 1));
  const add = (e: Evidence, feature: number, value: number) => {
    e.n[feature] = (e.n[feature] ?? 0) + 1;
    e.sum[feature] = (e.sum[feature] ?? 0) + value;
    e.sq[feature] = (e.sq[feature] ?? 0) + value * value;
  };
  for (const [b, owner] of owners.entries()) {
    const e = out[owner];
    if (!e) continue;
    const n = counts[b] ?? 0;
    if (n >= minVoiced) {
      for (let d = 0; d < dims; d++) {
        const mean = (sums[b * dims + d] ?? 0) / n;
        add(e, d, mean);
        add(e, dims + d, Math.sqrt(Math.max((sumsq[b * dims + d] ?? 0) / n - mean * mean, 0)));
      }
    }
    const pitched = pitch.counts[b] ?? 0;
    if (pitched >= minPitched) add(e, 2 * dims, (pitch.sums[b] ?? 0) / pitched);
  }
  return out;
}

/**
 * Sums the evidence of the items with each label.
 *
 * @example
 * const byCluster = evidenceByLabel(windowEvidence(...), labels); // Map label -> Evidence
 */
export function evidenceByLabel(evidence: Evidence[], labels: ArrayLike<number>): Map<number, Evidence> {
  const out = new Map<number, Evidence>();
  for (const [i, e] of evidence.entries()) {
    const label = labels[i] ?? 0;
    out.set(label, mergeEvidence(out.get(label), e));
  }
  return out;
}

/**
 * The evidence of two sets of blocks together (a new object; either side may be missing).
 *
 * @example
 * const both = mergeEvidence(byCluster.get(0), byCluster.get(1));
 */
export function mergeEvidence(a: Evidence | undefined, b: Evidence | undefined): Evidence {
  const features = a?.n.length ?? b?.n.length ?? 0;
  const out = emptyEvidence(features);
  for (const side of [a, b]) {
    if (!side) continue;
    for (let f = 0; f < features; f++) {
      out.n[f] = (out.n[f] ?? 0) + (side.n[f] ?? 0);
      out.sum[f] = (out.sum[f] ?? 0) + (side.sum[f] ?? 0);
      out.sq[f] = (out.sq[f] ?? 0) + (side.sq[f] ?? 0);
    }
  }
  return out;
}

/**
 * Mean over features of the two-sample t^2 (pooled variance) of two clusters' block features: about
 * 1 when both are samples of one speaker's speech, growing with the amount of speech when the voices
 * differ. Features with fewer than two blocks on a side are left out; 0 when none is left.
 *
 * @example
 * const t2 = blockT2(byCluster.get(0)!, byCluster.get(1)!); // e.g. 1.4 for one voice, 12 for two
 */
export function blockT2(a: Evidence, b: Evidence): number {
  let total = 0;
  let features = 0;
  for (let f = 0; f < a.n.length; f++) {
    const [na, nb] = [a.n[f] ?? 0, b.n[f] ?? 0];
    if (na < 2 || nb < 2) continue;
    const [ma, mb] = [(a.sum[f] ?? 0) / na, (b.sum[f] ?? 0) / nb];
    const pooled = ((a.sq[f] ?? 0) - na * ma * ma + (b.sq[f] ?? 0) - nb * mb * mb) / (na + nb - 2);
    total += (ma - mb) ** 2 / Math.max(pooled * (1 / na + 1 / nb), 1e-9);
    features++;
  }
  return features > 0 ? total / features : 0;
}
