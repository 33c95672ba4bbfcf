import { franc } from "franc-min";
import { fromAlpha3 } from "./iso639.ts";

/** Below this many letters a guess is noise; franc itself wants about this much. */
const MIN_LETTERS = 10;

/**
 * The language a text is written in, as a short code, or null when it is too short or unclear.
 * Vietnamese and English are told apart reliably from a sentence on; ~60 others from a paragraph.
 *
 * @example detectLanguage("Hôm nay chúng ta học về lịch sử Việt Nam.") // "vi"
 */
export function detectLanguage(text: string): string | null {
  const sample = text.slice(0, 4000);
  if ((sample.match(/\p{L}/gu)?.length ?? 0) < MIN_LETTERS) return null;
  const guess = franc(sample, { minLength: MIN_LETTERS });
  return guess === "und" ? null : fromAlpha3(guess);
}
