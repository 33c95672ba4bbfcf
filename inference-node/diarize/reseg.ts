/**
 * Resegmentation and turn building. Each cluster gets a diagonal Gaussian over its frames; every
 * voiced block is scored under each speaker exactly from its sufficient statistics, and a Viterbi
 * pass with a speaker-switch penalty picks the best label sequence at block (0.25 s) resolution.
 * This refines the coarse 1.5 s window decisions, especially around speaker changes.
 */
import type { SpeakerTurn } from "../../protocol/transcription.ts";
import type { BlockStats } from "./blocks.ts";

/** Options of {@link resegment}. */
export interface ResegmentOptions {
  /** Log-likelihood a speaker change costs. */
  switchPenalty: number;
  /** Gaussian fits and Viterbi passes. */
  iterations: number;
  /** Blocks a speaker may not take (reference-anchors.ts); none when absent. */
  barred?: (block: number, speaker: number) => boolean;
}

/**
 * Iterated Gaussian re-assignment of voiced blocks; `labels` holds a speaker per block (-1 for blocks
 * without voiced frames) and is refined `iterations` times. Speakers left without blocks disappear.
 *
 * @example
 * const refined = resegment(stats, initialLabels, 3, { switchPenalty: 40, iterations: 2 });
 */
export function resegment(
  stats: BlockStats,
  labels: Int32Array,
  speakers: number,
  options: ResegmentOptions,
): Int32Array {
  const { dims, counts, sums, sumsq } = stats;
  const voiced = [...counts.keys()].filter((b) => (counts[b] ?? 0) > 0);
  let current = labels;
  for (let iteration = 0; iteration < options.iterations; iteration++) {
    // Fit one diagonal Gaussian per speaker: constant term and per-dimension mean and inverse variance.
    const mean = new Float64Array(speakers * dims);
    const inv = new Float64Array(speakers * dims);
    const constant = new Float64Array(speakers).fill(Number.NEGATIVE_INFINITY);
    for (let k = 0; k < speakers; k++) {
      let n = 0;
      const s = new Float64Array(dims);
      const q = new Float64Array(dims);
      for (const b of voiced) {
        if (current[b] !== k) continue;
        n += counts[b] ?? 0;
        for (let d = 0; d < dims; d++) {
          s[d] = (s[d] ?? 0) + (sums[b * dims + d] ?? 0);
          q[d] = (q[d] ?? 0) + (sumsq[b * dims + d] ?? 0);
        }
      }
      if (n === 0) continue;
      let logDet = 0;
      for (let d = 0; d < dims; d++) {
        const m = (s[d] ?? 0) / n;
        const variance = Math.max((q[d] ?? 0) / n - m * m, 1e-3);
        mean[k * dims + d] = m;
        inv[k * dims + d] = 1 / variance;
        logDet += Math.log(2 * Math.PI * variance);
      }
      constant[k] = -0.5 * logDet;
    }
    current = viterbi(voiced, speakers, options.switchPenalty, labels.length, (b, k) => {
      if (constant[k] === Number.NEGATIVE_INFINITY || options.barred?.(b, k)) return Number.NEGATIVE_INFINITY;
      const n = counts[b] ?? 0;
      let ll = n * (constant[k] ?? 0);
      for (let d = 0; d < dims; d++) {
        const m = mean[k * dims + d] ?? 0;
        const i = b * dims + d;
        ll -= 0.5 * ((sumsq[i] ?? 0) - 2 * m * (sums[i] ?? 0) + n * m * m) * (inv[k * dims + d] ?? 0);
      }
      return ll;
    });
  }
  return current;
}

/** Best label path over the voiced blocks, paying `penalty` per speaker change. */
function viterbi(
  voiced: number[],
  speakers: number,
  penalty: number,
  length: number,
  score: (block: number, speaker: number) => number,
): Int32Array {
  const back = new Int32Array(voiced.length * speakers);
  let prev = new Float64Array(speakers);
  for (const [t, b] of voiced.entries()) {
    let best = 0;
    for (let k = 1; k < speakers; k++) if ((prev[k] ?? 0) > (prev[best] ?? 0)) best = k;
    const next = new Float64Array(speakers);
    for (let k = 0; k < speakers; k++) {
      const switched = (prev[best] ?? 0) - penalty;
      const from = (prev[k] ?? 0) >= switched ? k : best;
      back[t * speakers + k] = from;
      next[k] = Math.max(prev[k] ?? 0, switched) + score(b, k);
    }
    prev = next;
  }
  const out = new Int32Array(length).fill(-1);
  let k = 0;
  for (let j = 1; j < speakers; j++) if ((prev[j] ?? 0) > (prev[k] ?? 0)) k = j;
  for (let t = voiced.length - 1; t >= 0; t--) {
    out[voiced[t] ?? 0] = k;
    k = back[t * speakers + k] ?? 0;
  }
  return out;
}

/**
 * Turns from speech intervals and block labels: each interval is cut where the label of the blocks it
 * covers changes (blocks without voiced frames inherit the previous label), then same-speaker pieces
 * separated by at most `mergeGap` seconds are joined. Speakers are named `SPEAKER_00`, `SPEAKER_01`, …
 * in order of first appearance.
 *
 * @example
 * buildTurns([[0, 300]], labels, 25, 0.01, 0.5); // [{ start: 0, end: 3, speaker: "SPEAKER_00" }, ...]
 */
export function buildTurns(
  intervals: [number, number][],
  labels: Int32Array,
  blockFrames: number,
  frameSeconds: number,
  mergeGap: number,
): SpeakerTurn[] {
  const filled = Int32Array.from(labels);
  for (let b = 1; b < filled.length; b++) if ((filled[b] ?? 0) < 0) filled[b] = filled[b - 1] ?? 0;
  for (let b = filled.length - 2; b >= 0; b--) if ((filled[b] ?? 0) < 0) filled[b] = filled[b + 1] ?? 0;
  const names = new Map<number, string>();
  const turns: SpeakerTurn[] = [];
  const emit = (start: number, end: number, label: number) => {
    if (label < 0 || end <= start) return;
    const speaker = names.get(label) ?? `SPEAKER_${String(names.size).padStart(2, "0")}`;
    names.set(label, speaker);
    const [startS, endS] = [start * frameSeconds, end * frameSeconds];
    const last = turns.at(-1);
    if (last && last.speaker === speaker && startS - last.end <= mergeGap) last.end = endS;
    else turns.push({ start: startS, end: endS, speaker });
  };
  for (const [start, end] of intervals) {
    let pieceStart = start;
    for (let f = start; f < end; f = (Math.floor(f / blockFrames) + 1) * blockFrames) {
      const here = filled[Math.floor(f / blockFrames)] ?? -1;
      const nextFrame = (Math.floor(f / blockFrames) + 1) * blockFrames;
      const next = nextFrame < end ? (filled[nextFrame / blockFrames] ?? -1) : Number.NaN;
      if (next !== here) {
        emit(pieceStart, Math.min(nextFrame, end), here);
        pieceStart = nextFrame;
      }
    }
  }
  return turns.map((t) => ({ start: round(t.start), end: round(t.end), speaker: t.speaker }));
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;
