import { z } from "zod";
import { TranscriptionResult } from "./transcription.ts";

/**
 * Decoder detail the OpenAI-compatible endpoints need and the public TranscriptionResult does not
 * carry: per-segment token ids and scores, and word timings. A node adds it as `result.detail` to
 * interactive tasks; the Worker keeps it in the fast store only (JobState), never in D1 or the poll
 * and history views. Also the word helpers both sides share (the node aligns, the Worker estimates).
 */

/** One result segment's decoder figures, in OpenAI verbose_json terms. */
export const SegmentDetail = z.object({
  /** Start of the decoding window the segment came from, in 10 ms frames (whisper's `seek`). */
  seek: z.number().int().min(0),
  /** whisper token ids of the segment's text; special and timestamp tokens are left out. */
  tokens: z.array(z.number().int()),
  /** Temperature of the first decode of the window (whisper.cpp does not report a fallback's). */
  temperature: z.number(),
  /** Mean log-probability of the text tokens; 0 when the segment has none. */
  avg_logprob: z.number(),
  /** UTF-8 length over zlib-compressed length of the segment text (whisper's 2.4 rule). */
  compression_ratio: z.number(),
  no_speech_prob: z.number(),
});
export type SegmentDetail = z.infer<typeof SegmentDetail>;

/**
 * One decoded token as OpenAI's `logprobs` show it: its text, its log probability and its bytes (a
 * character the model split across tokens is whole only in the bytes).
 */
export const TokenLogprob = z.object({
  token: z.string(),
  logprob: z.number(),
  bytes: z.array(z.number().int().min(0).max(255)),
});
export type TokenLogprob = z.infer<typeof TokenLogprob>;

/** The most tokens a result's logprobs list (about four hours of speech). */
export const MAX_LOGPROB_TOKENS = 200_000;

/** A word and its time span, seconds from the clip start. */
export const WordTiming = z.object({ word: z.string(), start: z.number(), end: z.number() });
export type WordTiming = z.infer<typeof WordTiming>;

export const TranscriptionDetail = z.object({
  /** One entry per result segment, in the same order. */
  segments: z.array(SegmentDetail),
  /** Words of the cleaned text with times; null when the task did not ask for word timestamps. */
  words: z.array(WordTiming).nullable().default(null),
  /** The text tokens of every result segment, in order; null when the task did not ask for logprobs. */
  logprobs: z.array(TokenLogprob).max(MAX_LOGPROB_TOKENS).nullable().default(null),
});
export type TranscriptionDetail = z.infer<typeof TranscriptionDetail>;

/** What a node may complete a transcription task with: the result, plus detail for interactive tasks. */
export const DetailedTranscriptionResult = TranscriptionResult.extend({
  detail: TranscriptionDetail.optional(),
}).refine((result) => !result.detail || result.detail.segments.length === result.segments.length, {
  path: ["detail", "segments"],
  message: "detail needs one entry per result segment",
});
export type DetailedTranscriptionResult = z.infer<typeof DetailedTranscriptionResult>;

const NO_SPACE_SCRIPTS =
  String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}` +
  String.raw`\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Tibetan}`;
const NO_SPACE = new RegExp(`[${NO_SPACE_SCRIPTS}]`, "u");
const NO_SPACE_PIECES = new RegExp(`[${NO_SPACE_SCRIPTS}]|[^${NO_SPACE_SCRIPTS}]+`, "gu");
const EDGE_NON_WORD = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;
/** How far ahead of the last matched timed word a text word is looked for. */
const LOOKAHEAD = 4;

/**
 * The words of a text as OpenAI lists them: split on whitespace, punctuation at either end dropped
 * (inner punctuation such as "don't" stays); characters of scripts written without spaces (Han, kana,
 * Thai...) are one word each.
 *
 * @example splitWords("Hello, world! 你好") // ["Hello", "world", "你", "好"]
 */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  for (const chunk of text.split(/\s+/u)) {
    const word = chunk.replace(EDGE_NON_WORD, "");
    if (!word) continue;
    if (!NO_SPACE.test(word)) {
      words.push(word);
      continue;
    }
    for (const piece of word.match(NO_SPACE_PIECES) ?? []) {
      const clean = piece.replace(EDGE_NON_WORD, "");
      if (clean) words.push(clean);
    }
  }
  return words;
}

/** Comparison key of a word: NFKC, lower case, letters and digits only. */
function wordKey(word: string): string {
  return word
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, "");
}

/** A decoded token with its time span (seconds from the clip start). */
export interface TimedToken {
  text: string;
  start: number;
  end: number;
}

/**
 * Groups whisper's text tokens into timed words. A BPE token that starts with a space begins a word,
 * the others continue it; a token in a script written without spaces stands alone. A group that holds
 * several words (a CJK run, "well-known" split oddly) shares its span by character count.
 *
 * @example
 * wordsFromTokens([{ text: " Hel", start: 0, end: 0.2 }, { text: "lo", start: 0.2, end: 0.4 }, { text: ".", start: 0.4, end: 0.5 }]);
 * // [{ word: "Hello", start: 0, end: 0.5 }]
 */
export function wordsFromTokens(tokens: readonly TimedToken[]): WordTiming[] {
  const groups: TimedToken[] = [];
  for (const token of tokens) {
    const last = groups.at(-1);
    if (!last || /^\s/u.test(token.text) || NO_SPACE.test(token.text) || NO_SPACE.test(last.text)) {
      groups.push({ ...token });
    } else {
      last.text += token.text;
      last.end = Math.max(last.end, token.end);
    }
  }
  return groups.flatMap((group) => spread(splitWords(group.text), group.start, group.end));
}

/** Words laid over [start, end] in proportion to their lengths. */
function spread(words: readonly string[], start: number, end: number): WordTiming[] {
  const total = words.reduce((sum, word) => sum + word.length, 0);
  const span = Math.max(0, end - start);
  let at = start;
  return words.map((word) => {
    const length = total > 0 ? (span * word.length) / total : 0;
    const timing = { word, start: at, end: at + length };
    at += length;
    return timing;
  });
}

/**
 * Times the words of a (cleaned) segment text. Each word takes the times of the timed word it matches,
 * looking a few words ahead so words the cleaning removed are skipped; words without a match (changed
 * by truecasing a split character, or no timings at all) are spread over the gap between their timed
 * neighbours, or over the segment when nothing is timed. Times stay inside the segment and in order.
 *
 * @example
 * alignWords("Xin chào.", [], { start: 1, end: 2 });
 * // [{ word: "Xin", start: 1, end: 1.43 }, { word: "chào", start: 1.43, end: 2 }] (by length, 3:4)
 */
export function alignWords(
  text: string,
  timed: readonly WordTiming[],
  segment: { start: number; end: number },
): WordTiming[] {
  const words = splitWords(text);
  const aligned: { word: string; timing: WordTiming | null }[] = [];
  let next = 0;
  for (const word of words) {
    const key = wordKey(word);
    let match = -1;
    for (let k = next; k < Math.min(timed.length, next + LOOKAHEAD); k++) {
      if (wordKey(timed[k]?.word ?? "") === key) {
        match = k;
        break;
      }
    }
    aligned.push({ word, timing: match >= 0 ? (timed[match] ?? null) : null });
    if (match >= 0) next = match + 1;
  }
  const segStart = segment.start;
  const segEnd = Math.max(segment.start, segment.end);
  const clamp = (t: number) => Math.min(segEnd, Math.max(segStart, t));
  const out: WordTiming[] = [];
  let floor = segStart;
  for (let i = 0; i < aligned.length; ) {
    const item = aligned[i];
    if (!item) break;
    if (item.timing) {
      const start = Math.max(floor, clamp(item.timing.start));
      const end = Math.max(start, clamp(item.timing.end));
      out.push({ word: item.word, start, end });
      floor = start;
      i++;
      continue;
    }
    let j = i;
    while (j < aligned.length && !aligned[j]?.timing) j++;
    const from = out.at(-1)?.end ?? segStart;
    const nextTimed = aligned[j]?.timing;
    const to = Math.max(from, nextTimed ? clamp(nextTimed.start) : segEnd);
    const run = aligned.slice(i, j).map((entry) => entry.word);
    out.push(...spread(run, Math.max(floor, from), Math.max(floor, to)));
    floor = out.at(-1)?.start ?? floor;
    i = j;
  }
  return out;
}
