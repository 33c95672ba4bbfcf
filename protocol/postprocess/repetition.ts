/**
 * Collapse of whisper's repetition loops: the same run of words ("Cảm ơn. Cảm ơn. Cảm ơn.") or of
 * characters in scripts without spaces ("谢谢。谢谢。谢谢。"), and the same segment, or cycle of
 * segments, over and over. Also `hasLoopingRun`, half of the node's window-decoder loop test.
 *
 * Rule: a unit of 1..maxN tokens repeated at least minRepeats (3) times in a row keeps one copy; the
 * smallest repeating unit wins ("no no no no" → "no"), and passes repeat until nothing changes.
 * Tokens compare in lower case without edge punctuation but with diacritics, because Vietnamese
 * tones tell words apart ("ba bà bá" is three words). The kept copy ends with the punctuation of the
 * last copy ("No, no, no." → "No.").
 */
import { NO_SPACE_CLASS } from "./text.ts";

export interface RepetitionOptions {
  /** Copies in a row that make a loop (default 3). */
  minRepeats?: number;
  /**
   * Longest unit looked for, in words (default 8). A unit starting with a character of a script
   * written without spaces may be four times as long in characters (32), about as many words.
   */
  maxN?: number;
}

interface Token {
  /** Whitespace before the token. */
  sep: string;
  raw: string;
  key: string;
  /** A single character of a script written without spaces. */
  narrow: boolean;
}

const TOKEN = new RegExp(`(\\s*)([${NO_SPACE_CLASS}]|[^\\s${NO_SPACE_CLASS}]+)`, "gu");
const NARROW = new RegExp(`^[${NO_SPACE_CLASS}]$`, "u");
/** Characters per word, roughly, in scripts without spaces: widens maxN for units that start there. */
const CHARS_PER_WORD = 4;
const EDGE_PUNCT = /^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu;
const TRAILING_PUNCT = /[\p{P}\p{S}]+$/u;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const m of text.normalize("NFC").matchAll(TOKEN)) {
    const raw = m[2] ?? "";
    const core = raw.toLowerCase().replace(EDGE_PUNCT, "");
    tokens.push({ sep: m[1] ?? "", raw, key: core || raw, narrow: NARROW.test(raw) });
  }
  return tokens;
}

const detokenize = (tokens: readonly Token[]): string =>
  tokens
    .map((t) => t.sep + t.raw)
    .join("")
    .trim();

/** A run of one unit found at some position. */
interface Run {
  n: number;
  reps: number;
}

/** The smallest unit of at most `maxN` items starting at `i` that repeats `minRepeats` times, if any. */
function runAt(keys: readonly string[], i: number, minRepeats: number, maxN: number): Run | null {
  for (let n = 1; n <= maxN && i + n * minRepeats <= keys.length; n++) {
    let reps = 1;
    while (i + (reps + 1) * n <= keys.length && sameUnit(keys, i, i + reps * n, n)) reps++;
    if (reps >= minRepeats) return { n, reps };
  }
  return null;
}

function sameUnit(keys: readonly string[], a: number, b: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (keys[a + k] !== keys[b + k]) return false;
  return true;
}

/** Longest unit to look for from a token: wider where the token is a CJK/Thai character. */
const tokenLimit = (maxN: number) => (t: Token) => (t.narrow ? maxN * CHARS_PER_WORD : maxN);

/**
 * Collapses runs of any items (tokens, segments) by key until stable. `limit(item)` is the longest
 * unit starting at that item; `merge(kept, run)` builds the kept copy from the first copy's items and
 * the whole run.
 */
function collapseRuns<T>(
  items: readonly T[],
  key: (item: T) => string,
  limit: (item: T) => number,
  minRepeats: number,
  merge: (kept: T[], run: readonly T[]) => T[],
): T[] {
  let current = [...items];
  for (;;) {
    const keys = current.map(key);
    const out: T[] = [];
    let changed = false;
    for (let i = 0; i < current.length; ) {
      const item = current[i] as T;
      const run = keys[i] === "" ? null : runAt(keys, i, minRepeats, limit(item));
      if (run) {
        const span = current.slice(i, i + run.n * run.reps);
        out.push(...merge(span.slice(0, run.n), span));
        i += run.n * run.reps;
        changed = true;
      } else {
        out.push(item);
        i++;
      }
    }
    if (!changed) return out;
    current = out;
  }
}

/**
 * Collapses repeated n-grams in one text: any unit of 1..8 words (or characters, in scripts written
 * without spaces) that occurs 3 or more times in a row keeps one copy.
 *
 * @example
 * collapseRepetitions("Cảm ơn. Cảm ơn. Cảm ơn. Cảm ơn."); // "Cảm ơn."
 * collapseRepetitions("ご視聴ありがとうございました ご視聴ありがとうございました ご視聴ありがとうございました"); // one copy
 * collapseRepetitions("rất rất hay"); // unchanged: two copies are speech
 */
export function collapseRepetitions(text: string, options: RepetitionOptions = {}): string {
  const limit = tokenLimit(options.maxN ?? 8);
  const tokens = collapseRuns(
    tokenize(text),
    (t) => t.key,
    limit,
    options.minRepeats ?? 3,
    (kept, run) => {
      const last = run.at(-1);
      const end = kept.at(-1);
      if (!last || !end) return kept;
      const tail = TRAILING_PUNCT.exec(last.raw)?.[0] ?? "";
      const core = end.raw.replace(TRAILING_PUNCT, "");
      return [...kept.slice(0, -1), { ...end, raw: core ? core + tail : end.raw }];
    },
  );
  return detokenize(tokens);
}

/** The segment fields repetition collapse reads and writes. */
export interface TimedText {
  start: number;
  end: number;
  text: string;
}

const segmentKey = (text: string): string =>
  text
    .normalize("NFC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}]/gu, "");

/**
 * Collapses whisper's segment loops: the same segment (or cycle of up to 4 segments) 3 or more times in
 * a row keeps its first copy, stretched to end where the loop ends. Texts compare in lower case
 * without punctuation or spaces; segments with no words never merge.
 *
 * @example
 * collapseRepeatedSegments([
 *   { start: 0, end: 2, text: " Cảm ơn." },
 *   { start: 2, end: 4, text: " Cảm ơn." },
 *   { start: 4, end: 6, text: " cảm ơn" },
 * ]); // [{ start: 0, end: 6, text: " Cảm ơn." }]
 */
export function collapseRepeatedSegments<T extends TimedText>(
  segments: readonly T[],
  options: RepetitionOptions = {},
): T[] {
  const maxN = options.maxN ?? 4;
  return collapseRuns(
    segments,
    (s) => segmentKey(s.text),
    () => maxN,
    options.minRepeats ?? 3,
    (kept, run) => {
      const lastEnd = run.at(-1)?.end;
      const end = kept.at(-1);
      if (!end || lastEnd === undefined) return kept;
      return [...kept.slice(0, -1), { ...end, end: Math.max(end.end, lastEnd) }];
    },
  );
}

/**
 * Whether some unit repeats 3+ times in a row over at least 6 tokens (so "no no no" is speech, "cảm ơn
 * các bạn" three times is a loop): the token half of the node decoder's loop test
 * (inference-node/postprocess/looped.ts).
 *
 * @example
 * hasLoopingRun("Hẹn gặp lại. Hẹn gặp lại. Hẹn gặp lại."); // true
 * hasLoopingRun("Hôm nay trời đẹp quá."); // false
 */
export function hasLoopingRun(text: string, options: RepetitionOptions = {}): boolean {
  const minRepeats = options.minRepeats ?? 3;
  const limit = tokenLimit(options.maxN ?? 8);
  const tokens = tokenize(text);
  const keys = tokens.map((t) => t.key);
  for (const [i, token] of tokens.entries()) {
    const run = runAt(keys, i, minRepeats, limit(token));
    if (run && run.n * run.reps >= 6) return true;
  }
  return false;
}
