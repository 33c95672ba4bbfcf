/**
 * File jobs: long stretches the VAD hears no speech in (silence, music, noise) are taken out before
 * whisper sees the audio, which saves their decode time and takes away whisper's habit of inventing
 * text over silence. A stretch is skipped only when it is longer than `minGapSec`; `padSec` of it is
 * kept on each side, so word edges the VAD scored low are still decoded. A {@link TimeMap} records
 * which original samples were kept, so every timestamp whisper gives is mapped back exactly.
 *
 * Memory: at most `minGapSec` of non-speech is held (to emit it if speech resumes before the gap is
 * long enough to skip), plus one map entry (three numbers) per skipped stretch.
 */
import type { LabelledChunk } from "./speech-labels.ts";

const SAMPLE_RATE = 16_000;
/** Audio kept at each edge of a skipped stretch, by default. */
const PAD_SEC = 0.3;
/** Yielded where a stretch was taken out: the windower (audio/windows.ts) ends its window there. */
const BREAK = new Float32Array(0);

/**
 * Kept audio as pieces of the original: the kept stream's samples [keptStart, keptStart + length)
 * are the original's [originalStart, originalStart + length).
 *
 * @example
 * const map = new TimeMap();
 * map.keep(0, 16_000); map.keep(80_000, 16_000); // 1 s kept, 4 s skipped, 1 s kept
 * map.toOriginal(1.5, "start"); // 5.5
 */
export class TimeMap {
  /** Flat [keptStart, originalStart, length, ...], pieces in order, never adjacent in the original. */
  readonly #pieces: number[] = [];
  #kept = 0;
  /** Original samples seen (kept or not): the input's duration. */
  originalSamples = 0;

  /** Records that the next `length` kept samples are the original's from `originalStart`. */
  keep(originalStart: number, length: number): void {
    const p = this.#pieces;
    const last = p.length - 3;
    if (last >= 0 && (p[last + 1] ?? 0) + (p[last + 2] ?? 0) === originalStart)
      p[last + 2] = (p[last + 2] ?? 0) + length;
    else p.push(this.#kept, originalStart, length);
    this.#kept += length;
  }

  /** Samples kept so far. */
  get keptSamples(): number {
    return this.#kept;
  }

  /**
   * Original time of kept time `sec`. At a join, a start belongs to the piece after it and an end to
   * the piece before it, so no segment starts or ends inside a skipped stretch.
   */
  toOriginal(sec: number, edge: "start" | "end"): number {
    const p = this.#pieces;
    if (p.length === 0) return sec;
    const sample = Math.max(0, Math.min(this.#kept, Math.round(sec * SAMPLE_RATE)));
    // last piece whose kept start is before the sample (start: at or before it)
    let lo = 0;
    let hi = p.length / 3 - 1;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      const keptStart = p[mid * 3] ?? 0;
      if (edge === "start" ? keptStart <= sample : keptStart < sample) lo = mid;
      else hi = mid - 1;
    }
    const keptStart = p[lo * 3] ?? 0;
    const originalStart = p[lo * 3 + 1] ?? 0;
    return (originalStart + (sample - keptStart)) / SAMPLE_RATE;
  }
}

/** What {@link skipNonSpeech} leaves out. */
export interface SkipOptions {
  /** Non-speech runs longer than this (s) are left out... */
  minGapSec: number;
  /** ...except this much (s) at each edge, at most half the run as it crossed `minGapSec`. */
  padSec?: number;
  /**
   * A window of whisper ends where a run at least this long (s) was left out, so no window or segment
   * spans it; a shorter one is joined up like a pause. Default `minGapSec`: every left-out run ends one.
   */
  breakSec?: number;
}

/**
 * Passes labelled audio through, leaving out every run of non-speech frames longer than `minGapSec`
 * except `padSec` (default 0.3 s) at each end; `map` learns what was kept. An empty chunk marks each
 * place a run of at least `breakSec` was taken out. The stream's unlabelled tail is kept unless it
 * falls inside a left-out run.
 */
export async function* skipNonSpeech(
  chunks: AsyncIterable<LabelledChunk>,
  map: TimeMap,
  options: SkipOptions,
): AsyncGenerator<Float32Array> {
  /** The current non-speech run's frames not yet kept or dropped: at most `pad` once it is skipped. */
  let held: { frame: Float32Array; at: number }[] = [];
  let run = 0;
  /** The current run is long enough to be skipped. */
  let skipping = false;
  let position = 0;

  const emit = function* (frames: { frame: Float32Array; at: number }[]) {
    for (const { frame, at } of frames) {
      map.keep(at, frame.length);
      yield frame;
    }
  };

  for await (const { pcm, speech, frameSamples: n } of chunks) {
    const frames = (sec: number) => Math.ceil((sec * SAMPLE_RATE) / n);
    const gapFrames = frames(options.minGapSec);
    const breakFrames = frames(options.breakSec ?? options.minGapSec);
    // head and tail together never hold more than the run that crossed the gap: nothing is kept twice
    const padFrames = Math.min(frames(options.padSec ?? PAD_SEC), Math.floor((gapFrames + 1) / 2));
    for (const [i, isSpeech] of speech.entries()) {
      const item = { frame: pcm.slice(i * n, (i + 1) * n), at: position };
      position += n;
      if (isSpeech) {
        // whisper never sees both sides of a long left-out run at once
        if (skipping && run > breakFrames) yield BREAK;
        yield* emit(held);
        held = [];
        run = 0;
        skipping = false;
        yield* emit([item]);
        continue;
      }
      run++;
      held.push(item);
      if (run === gapFrames + 1) {
        // the run is long enough to skip: its head is kept as the previous speech's tail
        skipping = true;
        yield* emit(held.slice(0, padFrames));
        held = padFrames > 0 ? held.slice(-padFrames) : [];
      } else if (skipping) {
        held.shift();
      }
    }
    // only the stream's last chunk has a tail: it belongs to the current run
    const tail = pcm.subarray(speech.length * n);
    if (tail.length > 0 && !skipping) held.push({ frame: tail.slice(), at: position });
    position += tail.length;
    map.originalSamples = position;
  }
  // a short pause at the end is kept whole; a long one is already kept as far as it will be
  if (!skipping) yield* emit(held);
}
