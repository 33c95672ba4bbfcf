/**
 * Streaming pitch (F0) for the diarizer: voice pitch is the strongest cue for telling two speakers
 * apart in a few seconds of speech (a male and a female voice sit about an octave apart) and one the
 * cepstra barely carry. The 16 kHz input is low-passed at 700 Hz (4th-order Butterworth, two
 * biquads) and decimated to 2 kHz; per 10 ms frame the normalized cross-correlation of the frame's
 * last 25 ms with the same span `lag` samples earlier is searched over 71-500 Hz. The search looks
 * only backwards, so a frame's pitch is ready as soon as its MFCC frame is, and it needs no look-ahead.
 */
import { FRAME_HOP, FRAME_LENGTH, SAMPLE_RATE } from "./features.ts";

const DECIMATION = 8;
const RATE = SAMPLE_RATE / DECIMATION; // 2 kHz
const SPAN = FRAME_LENGTH / DECIMATION; // 50 samples: the 25 ms frame
const MIN_LAG = 4; // 500 Hz
const MAX_LAG = 28; // 71 Hz
/** Decimated samples kept between chunks: a frame reaches SPAN + MAX_LAG + 1 back from its end. */
const HISTORY = 2 * (SPAN + MAX_LAG + 1);
/** A frame is pitched when its best normalized correlation reaches this. */
const MIN_CORRELATION = 0.6;
/** The shortest lag within this share of the best correlation wins, which avoids octave-low errors. */
const NEAR_BEST = 0.9;

/** Normalized coefficients of one low-pass biquad section (RBJ cookbook, bilinear transform). */
interface Biquad {
  b0: number;
  b1: number;
  b2: number;
  a1: number;
  a2: number;
}

function lowPass(cutoffHz: number, q: number): Biquad {
  const w = (2 * Math.PI * cutoffHz) / SAMPLE_RATE;
  const alpha = Math.sin(w) / (2 * q);
  const cos = Math.cos(w);
  const a0 = 1 + alpha;
  const b = (1 - cos) / a0;
  return { b0: b / 2, b1: b, b2: b / 2, a1: (-2 * cos) / a0, a2: (1 - alpha) / a0 };
}

/** A 4th-order Butterworth as two sections, one per pole pair (Q 0.5412 and 1.3066). */
const FIRST = lowPass(700, 0.5412);
const SECOND = lowPass(700, 1.3066);

/**
 * Pitch per 10 ms frame of a 16 kHz stream. Feed every chunk with `feed` before asking for the
 * frames it completes; `logF0(frame)` is the natural log of F0 in Hz, or NaN when the frame is not
 * clearly periodic. Results do not depend on how the stream is chunked.
 *
 * @example
 * const pitch = new PitchTracker();
 * pitch.feed(pcm); // 16 kHz mono
 * const f0 = Math.exp(pitch.logF0(12)); // Hz, frame 12 (0.12-0.145 s)
 */
export class PitchTracker {
  private readonly state = new Float64Array(8);
  private phase = 0;
  /** Decimated samples; `offset` is the absolute index of `samples[0]`. */
  private samples = new Float64Array(0);
  private offset = 0;
  private length = 0;
  private readonly correlation = new Float64Array(MAX_LAG + 2);

  /** Filters and decimates the next chunk of 16 kHz samples. */
  feed(pcm: Float32Array): void {
    // Keep the last HISTORY samples: the frames this chunk completes reach that far back.
    const keep = Math.min(this.length, HISTORY);
    const samples = new Float64Array(keep + Math.ceil(pcm.length / DECIMATION));
    samples.set(this.samples.subarray(this.length - keep, this.length));
    this.offset += this.length - keep;
    this.samples = samples;
    this.length = keep;
    // The two sections unrolled with their state in locals: this loop runs for every input sample.
    const { b0, b1, b2, a1, a2 } = FIRST;
    const { b0: c0, b1: c1, b2: c2, a1: d1, a2: d2 } = SECOND;
    const state = this.state;
    let [x1, x2, y1, y2] = [state[0] ?? 0, state[1] ?? 0, state[2] ?? 0, state[3] ?? 0];
    let [u1, u2, v1, v2] = [state[4] ?? 0, state[5] ?? 0, state[6] ?? 0, state[7] ?? 0];
    let phase = this.phase;
    for (let i = 0; i < pcm.length; i++) {
      const x = pcm[i] ?? 0;
      const y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2;
      x2 = x1;
      x1 = x;
      y2 = y1;
      y1 = y;
      const v = c0 * y + c1 * u1 + c2 * u2 - d1 * v1 - d2 * v2;
      u2 = u1;
      u1 = y;
      v2 = v1;
      v1 = v;
      if (phase === 0) samples[this.length++] = v;
      phase = phase === DECIMATION - 1 ? 0 : phase + 1;
    }
    state.set([x1, x2, y1, y2, u1, u2, v1, v2]);
    this.phase = phase;
  }

  /** Natural log of the F0 (Hz) of 10 ms frame `frame`, or NaN when unpitched or not yet fed. */
  logF0(frame: number): number {
    const end = (frame * FRAME_HOP + FRAME_LENGTH) / DECIMATION - this.offset;
    const start = end - SPAN;
    if (start - MAX_LAG - 1 < 0 || end > this.length) return Number.NaN;
    const x = this.samples;
    let energy = 0;
    for (let i = start; i < end; i++) energy += (x[i] ?? 0) ** 2;
    if (energy <= 0) return Number.NaN;
    const correlation = this.correlation;
    let lagged = 0;
    for (let i = start - MIN_LAG; i < end - MIN_LAG; i++) lagged += (x[i] ?? 0) ** 2;
    let best = 0;
    for (let lag = MIN_LAG; lag <= MAX_LAG + 1; lag++) {
      if (lag > MIN_LAG) lagged += (x[start - lag] ?? 0) ** 2 - (x[end - lag] ?? 0) ** 2;
      let dot = 0;
      for (let i = start; i < end; i++) dot += (x[i] ?? 0) * (x[i - lag] ?? 0);
      const r = lagged > 0 ? dot / Math.sqrt(energy * lagged) : 0;
      correlation[lag] = r;
      if (lag <= MAX_LAG && r > best) best = r;
    }
    if (best < MIN_CORRELATION) return Number.NaN;
    for (let lag = MIN_LAG; lag <= MAX_LAG; lag++) {
      const [before, here, after] = [
        correlation[lag - 1] ?? 0,
        correlation[lag] ?? 0,
        correlation[lag + 1] ?? 0,
      ];
      if (here < NEAR_BEST * best || here < after || (lag > MIN_LAG && here < before)) continue;
      // Parabolic interpolation of the peak for a sub-sample lag.
      const curvature = before - 2 * here + after;
      const shift = lag > MIN_LAG && curvature < 0 ? (0.5 * (before - after)) / curvature : 0;
      return Math.log(RATE / (lag + Math.max(-0.5, Math.min(0.5, shift))));
    }
    return Number.NaN;
  }
}
