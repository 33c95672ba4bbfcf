/**
 * Compact per-block feature statistics: for every 0.25 s block the diarizer keeps only the count,
 * sum and sum of squares of the voiced frames' cepstra, and the same three for the log pitch of the
 * voiced frames that have one. These sufficient statistics are all later stages need: window
 * embeddings (mean and spread), per-recording normalization, block evidence for the significance
 * test between clusters, and exact Gaussian log-likelihoods of a block's frames for resegmentation.
 * Storage is paged so it grows without copying and never over-allocates by more than one page.
 */

/** Frames (10 ms) per block. */
export const BLOCK_FRAMES = 25;
/** Blocks per storage page (~1 minute of audio). */
const PAGE_BLOCKS = 256;

/** Count, sum and sum of squares of one scalar per block (flat float64, one value per block). */
export interface ScalarStats {
  counts: Float64Array;
  sums: Float64Array;
  sumsq: Float64Array;
}

/**
 * Block statistics, flat in float64: `sums`/`sumsq` hold `dims` cepstra per block after
 * per-recording mean and variance normalization (CMVN); `pitch` holds the natural log F0 (Hz) of the
 * frames that have one, not normalized: its absolute differences are meaningful (ln 2 is an octave).
 */
export interface BlockStats {
  dims: number;
  counts: Float64Array;
  sums: Float64Array;
  sumsq: Float64Array;
  pitch: ScalarStats;
}

/** Numbers stored per block: voiced count, cepstral sums and squares, pitch count, sum and square. */
export const blockStride = (dims: number) => 2 * dims + 4;

/**
 * Append-only store of float32 block statistics, {@link blockStride} numbers per block.
 *
 * @example
 * const store = new BlockStore(19);
 * store.append(voicedFrames, sums, sumsq, [pitched, logF0Sum, logF0Sq]); // once per 25 frames
 * const stats = store.normalized(); // normalized float64 copy for clustering
 */
export class BlockStore {
  private readonly pages: Float32Array[] = [];
  private page = new Float32Array(0);
  private count = 0;
  private readonly stride: number;

  constructor(readonly dims: number) {
    this.stride = blockStride(dims);
  }

  /** Bytes allocated for statistics (whole pages). */
  get bytes(): number {
    return this.pages.length * PAGE_BLOCKS * this.stride * Float32Array.BYTES_PER_ELEMENT;
  }

  /** Stores one block: cepstral moments of its voiced frames and `[count, sum, sum of squares]` of their log F0. */
  append(voiced: number, sums: Float64Array, sumsq: Float64Array, pitch: readonly number[]): void {
    const slot = this.count % PAGE_BLOCKS;
    if (slot === 0) {
      this.page = new Float32Array(PAGE_BLOCKS * this.stride);
      this.pages.push(this.page);
    }
    const page = this.page;
    const at = slot * this.stride;
    page[at] = voiced;
    page.set(sums, at + 1);
    page.set(sumsq, at + 1 + this.dims);
    page.set(pitch, at + 1 + 2 * this.dims);
    this.count++;
  }

  /**
   * Float64 statistics of the frames after per-recording cepstral mean and variance normalization,
   * or null when no frame was voiced. Normalizing the stored sums is exact: for x' = (x - m) / s,
   * sum' = (sum - n m) / s and sumsq' = (sumsq - 2 m sum + n m^2) / s^2.
   */
  normalized(): BlockStats | null {
    const stats = this.raw();
    if (!stats) return null;
    for (let d = 0; d < stats.dims; d++) normalize(stats.counts, stats.sums, stats.sumsq, stats.dims, d);
    return stats;
  }

  /**
   * Float64 statistics as stored, without normalization, or null when no frame was voiced: what a
   * voice profile compares across recordings (voice-profile.ts), where per-recording CMVN would take
   * out the very offsets that tell two voices apart.
   */
  raw(): BlockStats | null {
    const { dims, stride } = this;
    const counts = new Float64Array(this.count);
    const sums = new Float64Array(this.count * dims);
    const sumsq = new Float64Array(this.count * dims);
    const pitch = {
      counts: new Float64Array(this.count),
      sums: new Float64Array(this.count),
      sumsq: new Float64Array(this.count),
    };
    for (const [p, page] of this.pages.entries()) {
      for (let b = p * PAGE_BLOCKS; b < Math.min(this.count, (p + 1) * PAGE_BLOCKS); b++) {
        const at = (b % PAGE_BLOCKS) * stride;
        counts[b] = page[at] ?? 0;
        for (let d = 0; d < dims; d++) {
          sums[b * dims + d] = page[at + 1 + d] ?? 0;
          sumsq[b * dims + d] = page[at + 1 + dims + d] ?? 0;
        }
        pitch.counts[b] = page[at + 1 + 2 * dims] ?? 0;
        pitch.sums[b] = page[at + 2 + 2 * dims] ?? 0;
        pitch.sumsq[b] = page[at + 3 + 2 * dims] ?? 0;
      }
    }
    if (counts.every((n) => n === 0)) return null;
    return { dims, counts, sums, sumsq, pitch };
  }
}

/** Z-scores dimension `d` of flat block moments in place, over all blocks' frames. */
function normalize(counts: Float64Array, sums: Float64Array, sumsq: Float64Array, dims: number, d: number) {
  let [n, s, q] = [0, 0, 0];
  for (let b = 0; b < counts.length; b++) {
    n += counts[b] ?? 0;
    s += sums[b * dims + d] ?? 0;
    q += sumsq[b * dims + d] ?? 0;
  }
  if (n === 0) return;
  const mean = s / n;
  const std = Math.sqrt(Math.max(q / n - mean * mean, 1e-8));
  for (let b = 0; b < counts.length; b++) {
    const count = counts[b] ?? 0;
    const i = b * dims + d;
    sumsq[i] = ((sumsq[i] ?? 0) - 2 * mean * (sums[i] ?? 0) + count * mean * mean) / (std * std);
    sums[i] = ((sums[i] ?? 0) - count * mean) / std;
  }
}

/** A clustering item: blocks `[firstBlock, firstBlock + blocks)` and their embedding. */
export interface Window {
  firstBlock: number;
  blocks: number;
  embedding: Float64Array;
}

/**
 * Window embeddings: mean and standard deviation of the normalized cepstra of the voiced frames in
 * each window, then the mean log pitch of its pitched frames (the recording's average when none has
 * a pitch). Windows of `size` blocks slide by `hop` inside each segment and never cross a segment
 * boundary (the last one is aligned to the segment end; a shorter segment is one window); windows
 * with fewer than `minVoiced` voiced frames are skipped. The std half carries timbre cues (e.g. how
 * strongly formants move) that the mean alone misses.
 *
 * @example
 * const windows = windowEmbeddings(stats, segments, 6, 2, 50); // 1.5 s windows every 0.5 s
 */
export function windowEmbeddings(
  stats: BlockStats,
  segments: [number, number][],
  size: number,
  hop: number,
  minVoiced: number,
): Window[] {
  const { dims, counts, sums, sumsq, pitch } = stats;
  const pitched = pitch.counts.reduce((a, n) => a + n, 0);
  const averagePitch = pitched > 0 ? pitch.sums.reduce((a, s) => a + s, 0) / pitched : 0;
  const out: Window[] = [];
  for (const [first, end] of segments) {
    const starts: number[] = [];
    for (let b = first; b + size < end; b += hop) starts.push(b);
    starts.push(Math.max(first, end - size));
    for (const start of starts) {
      const last = Math.min(end, start + size);
      let [n, windowPitched, pitchSum] = [0, 0, 0];
      const s = new Float64Array(dims);
      const q = new Float64Array(dims);
      for (let b = start; b < last; b++) {
        n += counts[b] ?? 0;
        windowPitched += pitch.counts[b] ?? 0;
        pitchSum += pitch.sums[b] ?? 0;
        for (let d = 0; d < dims; d++) {
          s[d] = (s[d] ?? 0) + (sums[b * dims + d] ?? 0);
          q[d] = (q[d] ?? 0) + (sumsq[b * dims + d] ?? 0);
        }
      }
      if (n < minVoiced) continue;
      const embedding = new Float64Array(2 * dims + 1);
      embedding[2 * dims] = windowPitched > 0 ? pitchSum / windowPitched : averagePitch;
      for (let d = 0; d < dims; d++) {
        const mean = (s[d] ?? 0) / n;
        embedding[d] = mean;
        embedding[dims + d] = Math.sqrt(Math.max((q[d] ?? 0) / n - mean * mean, 0));
      }
      out.push({ firstBlock: start, blocks: last - start, embedding });
    }
  }
  return out;
}
