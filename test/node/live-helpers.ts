/** Signals and a scriptable fake decoder for the live engine's unit tests. */

import type { LiveDecoder, Transcript } from "../../inference-node/live/transcriber.ts";
import { AbortError, type DecodeOptions } from "../../native/index.ts";

export const SR = 16_000;

/**
 * "Speech" to an energy VAD: a 220 Hz tone whose loudness rises and falls four times a second, like
 * syllables (a steady tone would become the tracked noise floor after a few seconds, as it should).
 */
export function tone(ms: number, amplitude = 0.25): Float32Array {
  const out = new Float32Array(Math.round((ms * SR) / 1000));
  for (let i = 0; i < out.length; i++) {
    const syllables = 0.1 + 0.9 * Math.abs(Math.sin((2 * Math.PI * 2 * i) / SR));
    out[i] = amplitude * syllables * Math.sin((2 * Math.PI * 220 * i) / SR);
  }
  return out;
}

/** Low noise at about -60 dBFS (a quiet room), deterministic. */
export function quiet(ms: number): Float32Array {
  const out = new Float32Array(Math.round((ms * SR) / 1000));
  let seed = 42;
  for (let i = 0; i < out.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    out[i] = ((seed / 0x7fffffff) * 2 - 1) * 0.001;
  }
  return out;
}

export function concat(...parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Every chunk of a PCM stream, joined. */
export async function collectPcm(chunks: AsyncIterable<Float32Array>): Promise<Float32Array> {
  const parts: Float32Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return concat(...parts);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface DecodeCall {
  samples: number;
  options: DecodeOptions;
  startedAt: number;
  aborted: boolean;
}

/**
 * A decoder that answers after `delayMs` with `text(samples)`. Like the native one, an abort rejects
 * at once while `busy` stays true until the work would have finished.
 */
export class FakeDecoder implements LiveDecoder {
  busy = false;
  readonly calls: DecodeCall[] = [];
  #work: Promise<void> = Promise.resolve();

  constructor(
    private readonly text: (samples: number) => string,
    public delayMs = 1,
    private readonly noSpeechProb = 0.01,
  ) {}

  idle(): Promise<void> {
    return this.#work;
  }

  decode(pcm: Float32Array, options: DecodeOptions = {}): Promise<Transcript> {
    if (this.busy) return Promise.reject(new Error("ERR_STREAM_BUSY"));
    this.busy = true;
    const call: DecodeCall = { samples: pcm.length, options, startedAt: performance.now(), aborted: false };
    this.calls.push(call);
    const work = sleep(this.delayMs).then(() => {
      this.busy = false;
    });
    this.#work = work;
    const result = work.then(
      (): Transcript => ({
        language: options.language && options.language !== "auto" ? options.language : "en",
        languageProbability: null,
        segments: [
          {
            start: 0,
            end: pcm.length / SR,
            text: ` ${this.text(pcm.length)}`,
            tokens: [],
            avgLogprob: -0.3,
            noSpeechProb: this.noSpeechProb,
          },
        ],
      }),
    );
    const signal = options.signal;
    if (!signal) return result;
    return new Promise((resolve, reject) => {
      signal.addEventListener("abort", () => {
        call.aborted = true;
        reject(new AbortError(signal.reason));
      });
      result.then(resolve, reject);
    });
  }
}

/** Feeds `pcm` in `chunkMs` pieces, waiting `wallMsPerChunk` after each (the pace of the stream). */
export async function feed(
  push: (chunk: Float32Array) => void,
  pcm: Float32Array,
  chunkMs = 100,
  wallMsPerChunk = 2,
): Promise<void> {
  const step = Math.round((chunkMs * SR) / 1000);
  for (let at = 0; at < pcm.length; at += step) {
    push(pcm.subarray(at, Math.min(pcm.length, at + step)));
    await sleep(wallMsPerChunk);
  }
}
