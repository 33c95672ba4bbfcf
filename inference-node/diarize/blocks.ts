/**
 * Compact per-block feature statistics: for every 0.25 s block the diarizer keeps only the count,
 * sum and sum of squares of the voiced frames' cepstra. These sufficient statistics are all later
 * stages need: window embeddings (mean and spread), per-recording CMVN and exact Gaussian
 * log-likelihoods of a block's frames for resegmentation. Storage is paged so it grows without
 * copying and never over-allocates by more than one page.
 */

/** Frames (10 ms) per block. */
export const BLOCK_FRAMES = 25;
/** Blocks per storage page (~1 minute of audio). */
const PAGE_BLOCKS = 256;

/** Block statistics after CMVN, flat in float64: `sums`/`sumsq` hold `dims` values per block. */
export interface BlockStats {
  dims: number;
  counts: Float64Array;
  sums: Float64Array;
  sumsq: Float64Array;
}

/**
 * Append-only store of float32 block statistics, `2 * dims + 1` numbers per block.
 *
 * @example
 * const store = new BlockStore(19);
 * store.append(voicedFrames, sums, sumsq); // once per 25 frames
 * const stats = store.normalized();        // CMVN-ed float64 copy for clustering
 */
export class BlockStore {
  private readonly pages: Float32Array[] = [];
  private page = new Float32Array(0);
  private count = 0;
  private readonly stride: number;

  constructor(readonly dims: number) {
    this.stride = 2 * dims + 1;
  }

  /** Bytes allocated for statistics (whole pages). */
  get bytes(): number {
    return this.pages.length * PAGE_BLOCKS * this.stride * Float32Array.BYTES_PER_ELEMENT;
  }

  append(voiced: number, sums: Float64Array, sumsq: Float64Array): void {
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
    this.count++;
  }

  /**
   * Float64 statistics of the frames after per-recording cepstral mean and variance normalization,
   * or null when no frame was voiced. Normalizing the stored sums is exact: for x' = (x - m) / s,
   * sum' = (sum - n m) / s and sumsq' = (sumsq - 2 m sum + n m^2) / s^2.
   */
  normalized(): BlockStats | null {
    const { dims, stride } = this;
    const counts = new Float64Array(this.count);
    const sums = new Float64Array(this.count * dims);
    const sumsq = new Float64Array(this.count * dims);
    for (const [p, page] of this.pages.entries()) {
      for (let b = p * PAGE_BLOCKS; b < Math.min(this.count, (p + 1) * PAGE_BLOCKS); b++) {
        const at = (b % PAGE_BLOCKS) * stride;
        counts[b] = page[at] ?? 0;
        for (let d = 0; d < dims; d++) {
          sums[b * dims + d] = page[at + 1 + d] ?? 0;
          sumsq[b * dims + d] = page[at + 1 + dims + d] ?? 0;
        }
      }
    }
    const total = counts.reduce((a, n) => a + n, 0);
    if (total === 0) return null;
    for (let d = 0; d < dims; d++) {
      let s = 0;
      let q = 0;
      for (let b = 0; b < this.count; b++) {
        s += sums[b * dims + d] ?? 0;
        q += sumsq[b * dims + d] ?? 0;
      }
      const mean = s / total;
      const std = Math.sqrt(Math.max(q / total - mean * mean, 1e-8));
      for (let b = 0; b < this.count; b++) {
        const n = counts[b] ?? 0;
        const i = b * dims + d;
        sumsq[i] = ((sumsq[i] ?? 0) - 2 * mean * (sums[i] ?? 0) + n * mean * mean) / (std * std);
        sums[i] = ((sums[i] ?? 0) - n * mean) / std;
      }
    }
    return { dims, counts, sums, sumsq };
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
 * each window. Windows of `size` blocks slide by `hop` inside each segment and never cross a segment
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
  const { dims, counts, sums, sumsq } = stats;
  const out: Window[] = [];
  for (const [first, end] of segments) {
    const starts: number[] = [];
    for (let b = first; b + size < end; b += hop) starts.push(b);
    starts.push(Math.max(first, end - size));
    for (const start of starts) {
      const last = Math.min(end, start + size);
      let n = 0;
      const s = new Float64Array(dims);
      const q = new Float64Array(dims);
      for (let b = start; b < last; b++) {
        n += counts[b] ?? 0;
        for (let d = 0; d < dims; d++) {
          s[d] = (s[d] ?? 0) + (sums[b * dims + d] ?? 0);
          q[d] = (q[d] ?? 0) + (sumsq[b * dims + d] ?? 0);
        }
      }
      if (n < minVoiced) continue;
      const embedding = new Float64Array(2 * dims);
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
