/**
 * Joins synthesized pieces into one narration with fixed pauses, keeping every word's time exact:
 * a piece is trimmed of its own silence, then placed at a known sample offset.
 */

import type { WordTiming } from "./synthesizer.ts";
import { concatPcm, durationOf, type Pcm, resample, trimSilence } from "./wav.ts";

/** Pause between phrases of one sentence, and between sentences. */
export const PHRASE_GAP_SEC = 0.08;
export const SENTENCE_GAP_SEC = 0.32;

export interface SpokenPiece {
  pcm: Pcm;
  /** The words of the piece, with weights for how long each is spoken (any unit). */
  words: { text: string; weight: number }[];
  /** The piece ends a sentence (a longer pause follows). */
  sentenceEnd: boolean;
}

/**
 * Spreads `duration` over words by weight: word i gets [sum of weights before i, ... + its own) scaled.
 *
 * @example
 * spreadWords([{ text: "a", weight: 1 }, { text: "b", weight: 3 }], 2, 10);
 * // [{ text: "a", start: 10, end: 10.5 }, { text: "b", start: 10.5, end: 12 }]
 */
export function spreadWords(
  words: readonly { text: string; weight: number }[],
  duration: number,
  offset: number,
): WordTiming[] {
  const total = words.reduce((sum, w) => sum + Math.max(w.weight, 1e-6), 0);
  let at = 0;
  return words.map((w) => {
    const start = offset + (at / total) * duration;
    at += Math.max(w.weight, 1e-6);
    return { text: w.text, start, end: offset + (at / total) * duration };
  });
}

/** The narration PCM and its word times. */
export function assemblePieces(
  pieces: readonly SpokenPiece[],
  sampleRate: number,
): { pcm: Pcm; words: WordTiming[] } {
  const parts: (Int16Array | number)[] = [];
  const words: WordTiming[] = [];
  let at = 0;
  pieces.forEach((piece, i) => {
    const audible = trimSilence(resample(piece.pcm, sampleRate));
    const length = durationOf(audible);
    words.push(...spreadWords(piece.words, length, at));
    parts.push(audible.samples);
    at += audible.samples.length / sampleRate;
    if (i < pieces.length - 1) {
      const gap = piece.sentenceEnd ? SENTENCE_GAP_SEC : PHRASE_GAP_SEC;
      parts.push(gap);
      at += Math.round(gap * sampleRate) / sampleRate;
    }
  });
  return { pcm: concatPcm(sampleRate, parts), words };
}
