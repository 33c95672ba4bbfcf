/**
 * Spacing cleanup for every language, and sentence-initial capitals for Vietnamese.
 *
 * Spacing: NFC, whitespace runs to one space, no space before `, . ! ? : ; …` or a closing bracket or
 * quote, none after an opening one, and one space after `, ; : ! ? …` when a letter follows, and
 * after `.` only between a lower-case word and a capital, or where the space stood before the stop
 * ("bạn .hôm"), so "amara.org", "TP.HCM", "3.14", "10:30" and "1,000" stay whole.
 *
 * Capitals: Vietnamese whisper output is often all lower case. Proper nouns get their capitals first
 * (places, organisations and acronyms, full names, names after a title: `vi-proper-nouns.ts`), then
 * the first letter of the text (when it starts a sentence) and the first letter after `. ! ? …`
 * become capitals; existing capitals are kept. Other languages are left alone: whisper already cases
 * English, German or French, and abbreviations ("e.g. the", "z. B. das") would make the rules do harm.
 */

import { capitalizeProperNouns } from "./vi-proper-nouns.ts";

/** Languages that get proper-noun and sentence-initial capitals. */
export const SENTENCE_CASE_LANGUAGES: ReadonlySet<string> = new Set(["vi"]);

// Regex character-class sources. Curly single quotes are left out: "’" is also the apostrophe.
const OPENERS = String.raw`(\[{“«`;
const CLOSERS = String.raw`)\]}”»`;
/** Abbreviations after which a full stop does not end the sentence (lower case, with their dots). */
const ABBREVIATIONS = new Set([
  "v.v.",
  "vv.",
  "e.g.",
  "i.e.",
  "vs.",
  "tp.",
  "ts.",
  "ths.",
  "pgs.",
  "gs.",
  "mr.",
  "dr.",
]);

/**
 * Straight double quotes pair up: odd ones open, even ones close. Returns the text with spaces
 * inside each pair removed.
 */
function tightenStraightQuotes(text: string): string {
  let open = false;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch !== '"') {
      out += ch;
      continue;
    }
    if (open) out = out.replace(/ +$/u, "");
    out += ch;
    if (!open) while (text[i + 1] === " ") i++;
    open = !open;
  }
  return out;
}

/**
 * Generic spacing cleanup (all languages); see the module comment for the rules.
 *
 * @example
 * normalizeSpacing("Xin chào , các bạn !Hôm nay ( thứ hai ) trời đẹp"); // "Xin chào, các bạn! Hôm nay (thứ hai) trời đẹp"
 */
export function normalizeSpacing(text: string): string {
  const spaced = text
    .normalize("NFC")
    .replace(/\s+/gu, " ")
    // "bạn .hôm" is a misplaced space, not a domain name: the stop moves back, the space forward
    .replace(/ +([.!?])(?=\p{L})/gu, "$1 ")
    .replace(/ +([,.!?:;…])/gu, "$1")
    .replace(new RegExp(`([${OPENERS}]) +`, "gu"), "$1")
    .replace(new RegExp(` +([${CLOSERS}])`, "gu"), "$1")
    .replace(/([,;…])(?=\p{L})/gu, "$1 ")
    .replace(/(\p{L}):(?=\p{L})/gu, "$1: ")
    .replace(/([!?])(?=\p{L})/gu, "$1 ")
    // a full stop glued to a capital ends a sentence only after a lower-case word: "TP.HCM", "U.S.A" stay
    .replace(/(?<=\p{Ll}{2})\.(?=\p{Lu})/gu, ". ")
    .trim();
  return tightenStraightQuotes(spaced);
}

/** Whether the text ends a sentence: `. ! ? …` possibly followed by closing quotes or brackets. */
export function endsSentence(text: string): boolean {
  const trimmed = text.trimEnd().replace(new RegExp(`[${CLOSERS}"]+$`, "u"), "");
  if (!/[.!?…]$/u.test(trimmed)) return false;
  const lastWord = trimmed.split(" ").at(-1)?.toLowerCase() ?? "";
  return !ABBREVIATIONS.has(lastWord);
}

/** Opening punctuation before a sentence's first letter. */
const LEAD = new RegExp(`^([${OPENERS}"'¿¡-]*)(\\p{L})`, "u");

const upperFirst = (word: string): string => {
  const first = String.fromCodePoint(word.codePointAt(0) ?? 0);
  return first.toUpperCase() + word.slice(first.length);
};

/**
 * Capitalizes sentence starts: the first letter when `atSentenceStart` and the first letter after each
 * sentence end. Works on composed Vietnamese letters ("đ" → "Đ", "ư" → "Ư", "ấ" → "Ấ").
 *
 * @example
 * sentenceCase("đây là hà nội. ưu tiên số một là an toàn."); // "Đây là hà nội. Ưu tiên số một là an toàn."
 */
export function sentenceCase(text: string, atSentenceStart = true): string {
  const words = text.normalize("NFC").split(" ");
  let start = atSentenceStart;
  return words
    .map((word) => {
      let out = word;
      if (start) {
        const lead = LEAD.exec(word);
        if (lead) {
          const prefix = lead[1] ?? "";
          out = prefix + upperFirst(word.slice(prefix.length));
          start = false;
        } else if (/[\p{N}]/u.test(word)) {
          start = false;
        }
      }
      if (word && endsSentence(word)) start = true;
      return out;
    })
    .join(" ");
}

/**
 * Spacing cleanup for every language, plus proper-noun and sentence-initial capitals for
 * {@link SENTENCE_CASE_LANGUAGES}.
 * `atSentenceStart` says whether the text begins a sentence (false for a segment that continues the
 * previous one's sentence).
 *
 * @example
 * truecase("  xin chào các bạn .hôm nay  trời đẹp ", "vi"); // "Xin chào các bạn. Hôm nay trời đẹp"
 * truecase("tôi sống ở hà nội", "vi"); // "Tôi sống ở Hà Nội"
 * truecase("see you ,then", "en"); // "see you, then"
 */
export function truecase(text: string, language: string, atSentenceStart = true): string {
  const spaced = normalizeSpacing(text);
  const base = language.toLowerCase().split(/[-_]/)[0] ?? "";
  if (!SENTENCE_CASE_LANGUAGES.has(base)) return spaced;
  return sentenceCase(capitalizeProperNouns(spaced), atSentenceStart);
}
