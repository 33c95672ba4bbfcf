/**
 * Text helpers shared by the script, quiz, deck and caption builders: sentences, words, phrases,
 * folding for comparisons, and a language guess for notes that carry none.
 */

import { detectLanguage } from "../../protocol/language-detect.ts";
import { splitSentences as sentencesOf } from "../../protocol/sentences.ts";

/** Markdown and list decoration that should not be read aloud or shown as text. */
function stripMarkup(line: string): string {
  return line
    .replace(/!\[[^\]]*]\([^)]*\)/g, "")
    .replace(/\[([^\]]*)]\([^)]*\)/g, "$1")
    .replace(/^\s{0,3}(#{1,6}|[-*+•]|\d+[.)])\s+/, "")
    .replace(/[*_`~]+/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** A heading line of the note ("# Title", or a short line ending with ":"). */
export function headingOf(line: string): string | null {
  const md = /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
  if (md?.[1]) return stripMarkup(md[1]);
  return null;
}

export interface NoteSection {
  heading: string | null;
  sentences: string[];
}

/**
 * Splits a note into sections (at markdown headings) of clean sentences, in order.
 *
 * @example
 * noteSections("# Rivers\nThe Mekong is long. It has fish.");
 * // [{ heading: "Rivers", sentences: ["The Mekong is long.", "It has fish."] }]
 */
export function noteSections(content: string, language = "en"): NoteSection[] {
  const sections: NoteSection[] = [{ heading: null, sentences: [] }];
  let paragraph: string[] = [];
  const flush = () => {
    const text = paragraph.join(" ").trim();
    paragraph = [];
    if (text) sections.at(-1)?.sentences.push(...splitSentences(text, language));
  };
  for (const line of content.split(/\r?\n/)) {
    const heading = headingOf(line);
    if (heading !== null) {
      flush();
      sections.push({ heading, sentences: [] });
      continue;
    }
    const clean = stripMarkup(line);
    if (!clean) {
      flush();
      continue;
    }
    // A list item is its own sentence even without a full stop.
    if (/^\s*([-*+•]|\d+[.)])\s+/.test(line)) {
      flush();
      paragraph.push(/[.!?…]$/.test(clean) ? clean : `${clean}.`);
      flush();
      continue;
    }
    paragraph.push(clean);
  }
  flush();
  return sections.filter((s) => s.sentences.length > 0 || s.heading !== null);
}

/** Sentences of plain text that have something to say (a letter or digit), by the one splitter. */
export function splitSentences(text: string, language = "en"): string[] {
  return sentencesOf(text, language).filter((s) => /\p{L}|\p{N}/u.test(s));
}

/**
 * `text` ending as a sentence does, for a title or a line read aloud.
 *
 * @example asSentence("Rivers of Asia") // "Rivers of Asia."
 */
export function asSentence(text: string): string {
  return /[.!?…]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`;
}

/** Space-separated tokens with their punctuation (what is spoken and shown). */
export function splitWords(text: string): string[] {
  return text.split(/\s+/).filter((w) => /\p{L}|\p{N}/u.test(w));
}

/** Lower-case letters and digits only: the form used for term statistics. */
export function termOf(word: string): string {
  return word.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
}

/**
 * Case- and diacritic-insensitive form, for "are these two options the same?".
 *
 * @example
 * foldForCompare("Hà Nội") === foldForCompare("ha noi"); // true
 */
export function foldForCompare(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .replace(/đ/gi, "d")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/**
 * The note's language as one of ours ("vi" for "vi-VN"); when absent or unsupported, the one language
 * detector's guess, English unless it reads Vietnamese.
 */
export function noteLanguage(language: string | null, content: string): "en" | "vi" {
  const base = language?.toLowerCase().split(/[-_]/)[0];
  if (base === "en" || base === "vi") return base;
  return detectLanguage(content) === "vi" ? "vi" : "en";
}

/** A caption line: at most this many words. */
export const PHRASE_MAX_WORDS = 4;
/** ... and at most about this many characters, so one line fits 1080 px at caption size. */
export const PHRASE_MAX_CHARS = 24;

/**
 * Splits a sentence into short phrases (caption lines and synthesis units), breaking after
 * punctuation first, then at PHRASE_MAX_WORDS / PHRASE_MAX_CHARS.
 *
 * @example
 * splitPhrases("The Mekong, a long river, flows through six countries of Asia.");
 * // ["The Mekong,", "a long river,", "flows through six", "countries of Asia."]
 */
export function splitPhrases(sentence: string): string[] {
  const phrases: string[] = [];
  let current: string[] = [];
  const push = () => {
    if (current.length > 0) phrases.push(current.join(" "));
    current = [];
  };
  const words = splitWords(sentence);
  words.forEach((word, i) => {
    const length = [...current, word].join(" ").length;
    if (current.length >= PHRASE_MAX_WORDS || (current.length > 0 && length > PHRASE_MAX_CHARS)) push();
    current.push(word);
    // Break after a clause mark unless only one word would be left for the next phrase.
    if (/[,;:—–]$/.test(word) && i < words.length - 2) push();
  });
  push();
  return phrases;
}
