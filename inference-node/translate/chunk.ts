/**
 * Splitting long text into request-sized chunks at sentence boundaries, and translating it chunk by
 * chunk. Translation APIs cap request sizes (LibreTranslate's char_limit) and models lose quality
 * on very long inputs, so a one-hour transcript goes out in pieces.
 */

import { sentenceSpans } from "../../protocol/sentences.ts";

/** One chunk and the whitespace that separated it from the previous one in the source. */
export interface Chunk {
  text: string;
  /** "" for the first chunk. */
  before: string;
}

/** Splits one over-long sentence at spaces, and a word longer than `max` by code points. */
function splitLong(sentence: string, max: number): string[] {
  if (sentence.length <= max) return [sentence];
  const pieces: string[] = [];
  let current = "";
  for (const word of sentence.split(/\s+/u)) {
    const words = word.length <= max ? [word] : hardSplit(word, max);
    for (const w of words) {
      if (!current) current = w;
      else if (current.length + 1 + w.length <= max) current += ` ${w}`;
      else {
        pieces.push(current);
        current = w;
      }
    }
  }
  if (current) pieces.push(current);
  return pieces;
}

function hardSplit(word: string, max: number): string[] {
  const out: string[] = [];
  let current = "";
  for (const ch of word) {
    if (current.length + ch.length > max) {
      out.push(current);
      current = "";
    }
    current += ch;
  }
  if (current) out.push(current);
  return out;
}

/**
 * Splits trimmed `text` into chunks of at most `maxChars` characters, packing whole sentences (the one
 * sentence splitter, protocol/sentences.ts, in the source `language`); only a sentence longer than
 * `maxChars` is cut, at spaces. Joining each chunk's `before` and `text` gives back the trimmed text.
 *
 * @example
 * splitIntoChunks("Một câu. Hai câu. Ba câu.", 18);
 * // [{ text: "Một câu. Hai câu.", before: "" }, { text: "Ba câu.", before: " " }]
 */
export function splitIntoChunks(text: string, maxChars: number, language = "en"): Chunk[] {
  const chunks: Chunk[] = [];
  let current: Chunk | null = null;
  let after = "";
  for (const span of sentenceSpans(text.trim(), language)) {
    const sentence = span.text;
    let gap = after;
    after = span.after;
    if (!sentence) continue;
    for (const piece of splitLong(sentence, maxChars)) {
      if (current && current.text.length + gap.length + piece.length <= maxChars) {
        current.text += gap + piece;
      } else if (current) {
        chunks.push(current);
        current = { text: piece, before: gap || " " };
      } else {
        current = { text: piece, before: "" };
      }
      gap = " ";
    }
  }
  if (current) chunks.push(current);
  return chunks;
}

/**
 * Translates text chunk by chunk, in order, and joins the results with the source's separators
 * (a line break stays a line break). Blank text resolves to "" without calling `translateChunk`.
 * `language` is the source's, for the sentence splitter.
 *
 * @example
 * await translateInChunks(longText, 2000, (chunk) => backend.request(chunk), "vi");
 */
export async function translateInChunks(
  text: string,
  maxChars: number,
  translateChunk: (chunk: string) => Promise<string>,
  language = "en",
): Promise<string> {
  let out = "";
  for (const chunk of splitIntoChunks(text, maxChars, language)) {
    const translated = (await translateChunk(chunk.text)).trim();
    out += (out ? chunk.before : "") + translated;
  }
  return out;
}
