/**
 * Shortens a narration to a time limit at a sentence end, so a short never runs past clip_duration
 * and never stops mid-sentence (mid-word at worst, when one sentence alone is too long).
 */
import type { Speech } from "./synthesizer.ts";
import { readWav, writeWav } from "./wav.ts";

/** Breath kept after the last kept word. */
const TAIL_SEC = 0.1;

/**
 * The speech cut after the last sentence that ends by `maxSec` (rewrites the WAV in place).
 *
 * @example
 * const fitted = await fitSpeech(speech, 29.4); // fitted.durationSec <= 29.4
 */
export async function fitSpeech(speech: Speech, maxSec: number): Promise<Speech> {
  if (speech.durationSec <= maxSec) return speech;
  const fits = speech.words.filter((w) => w.end + TAIL_SEC <= maxSec);
  const lastSentenceEnd = fits.findLastIndex((w) => /[.!?…]["”')\]]*$/.test(w.text));
  // A sentence end that keeps at least half of what fits; else cut after the last word that fits.
  const keep = lastSentenceEnd + 1 >= fits.length / 2 ? lastSentenceEnd + 1 : fits.length;
  const words = speech.words.slice(0, keep);
  const cutSec = Math.min(maxSec, (words.at(-1)?.end ?? 0) + TAIL_SEC);
  const pcm = await readWav(speech.wavPath);
  const samples = pcm.samples.slice(0, Math.floor(cutSec * pcm.sampleRate));
  await writeWav(speech.wavPath, { sampleRate: pcm.sampleRate, samples });
  return { ...speech, words, durationSec: samples.length / pcm.sampleRate };
}
