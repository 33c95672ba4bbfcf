/**
 * One interface for narration engines. Every engine returns the words it spoke with their times in
 * the written WAV, so captions can highlight the word being said.
 */
import type { Voice } from "../../../protocol/content.ts";

/** A spoken word and when it is heard in the WAV, in seconds. */
export interface WordTiming {
  text: string;
  start: number;
  end: number;
}

export interface Speech {
  /** 16-bit mono PCM WAV. */
  wavPath: string;
  durationSec: number;
  /** In spoken order, non-overlapping. */
  words: WordTiming[];
  /**
   * "measured": word times come from the synthesizer's own audio (espeak-ng); "proportional": unit
   * boundaries are measured and words inside a unit are spread by character count (remote engines).
   */
  timing: "measured" | "proportional";
}

/**
 * A text-to-speech engine.
 *
 * @example
 * const speech = await synthesizer.synthesize("Hello there. How are you?", voice, signal, "/tmp/a.wav");
 * speech.words[0]; // { text: "Hello", start: 0, end: 0.31 }
 */
export interface SpeechSynthesizer {
  /** "espeak-ng", or "openai" for an OpenAI-compatible server. */
  readonly engine: string;
  /**
   * Speaks `text` with `voice` into `wavPath`. Rejects with ContentError `tts_unavailable` when the
   * engine is missing or unreachable, `tts_failed` when it fails, and with the signal's reason on abort.
   */
  synthesize(text: string, voice: Voice, signal: AbortSignal, wavPath: string): Promise<Speech>;
}

/** Runs `fn` over `items` with at most `limit` in flight, keeping order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
