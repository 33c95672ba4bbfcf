import { SAMPLE_RATE } from "../media/pcm-stream.ts";

export interface AudioWindow {
  /** Seconds from the start of the input. */
  offsetSec: number;
  samples: Float32Array;
}

export interface WindowOptions {
  /** Longest window in seconds (whisper sees 30 s at a time). */
  windowSec?: number;
  /**
   * Longest first window, when shorter than `windowSec`: a caller streaming the text gets its first
   * words after this much audio is decoded rather than a whole window's.
   */
  firstWindowSec?: number;
  /** How far back from the window's end to look for a quiet place to cut. */
  searchSec?: number;
  /** Energy is compared over frames of this length. */
  frameSec?: number;
}

/**
 * Regroups a PCM stream into windows of at most `windowSec`, each cut at the quietest frame of its
 * last `searchSec` so words are not split between windows. Holds at most one window of audio. An
 * empty chunk is a break: the window ends there (where a skipped non-speech stretch was taken out,
 * so no window, and no segment, spans it).
 *
 * @example
 * for await (const w of windows(pcmChunks(file))) await model.transcribe(w.samples);
 */
export async function* windows(
  pcm: AsyncIterable<Float32Array>,
  options: WindowOptions = {},
): AsyncGenerator<AudioWindow> {
  const windowSamples = Math.round((options.windowSec ?? 30) * SAMPLE_RATE);
  const searchSamples = Math.round((options.searchSec ?? 5) * SAMPLE_RATE);
  // the first window's length, then every other's
  let limit = Math.min(
    windowSamples,
    Math.round((options.firstWindowSec ?? Number.POSITIVE_INFINITY) * SAMPLE_RATE),
  );
  const frame = Math.max(1, Math.round((options.frameSec ?? 0.1) * SAMPLE_RATE));
  let buffer = new Float32Array(windowSamples);
  let filled = 0;
  let consumed = 0;
  for await (const chunk of pcm) {
    if (chunk.length === 0 && filled > 0) {
      limit = windowSamples;
      yield { offsetSec: consumed / SAMPLE_RATE, samples: buffer.slice(0, filled) };
      consumed += filled;
      filled = 0;
      continue;
    }
    let at = 0;
    while (at < chunk.length) {
      const take = Math.min(chunk.length - at, limit - filled);
      buffer.set(chunk.subarray(at, at + take), filled);
      filled += take;
      at += take;
      if (filled < limit) continue;
      const cut = quietestCut(buffer, limit - Math.min(searchSamples, limit / 2), limit, frame);
      limit = windowSamples;
      yield { offsetSec: consumed / SAMPLE_RATE, samples: buffer.slice(0, cut) };
      consumed += cut;
      const rest = buffer.subarray(cut, filled);
      const next = new Float32Array(windowSamples);
      next.set(rest);
      buffer = next;
      filled = rest.length;
    }
  }
  if (filled > 0) yield { offsetSec: consumed / SAMPLE_RATE, samples: buffer.slice(0, filled) };
}

/** The sample index at the centre of the lowest-energy frame within [from, to). */
export function quietestCut(samples: Float32Array, from: number, to: number, frame: number): number {
  let best = to;
  let bestEnergy = Number.POSITIVE_INFINITY;
  for (let start = Math.max(0, from); start + frame <= to; start += frame) {
    let energy = 0;
    for (let i = start; i < start + frame; i++) {
      const s = samples[i] ?? 0;
      energy += s * s;
    }
    if (energy < bestEnergy) {
      bestEnergy = energy;
      best = start + Math.floor(frame / 2);
    }
  }
  return best;
}
