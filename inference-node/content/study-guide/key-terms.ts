/**
 * The note's key terms, each with the sentence that defines it ("X is ...", "X là ...") or, when no
 * sentence does, the first that uses it. What the note defines comes first, then names (the most
 * mentioned first), then the content words it repeats.
 */
import { isStopword, keyTerms, lowerCaseWords } from "../keywords.ts";
import type { ContentLanguage } from "../script.ts";
import { foldForCompare, splitWords, termOf } from "../text.ts";

export interface GuideTerm {
  term: string;
  definition: string;
}

export const MAX_KEY_TERMS = 8;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Words that, right after a term, make its sentence a definition of it. */
const DEFINING: Readonly<Record<ContentLanguage, string>> = {
  en: "(?:is|are|was|were|means|refers to|describes)",
  vi: "(?:là|được gọi là|có nghĩa là|chỉ)",
};

/** "The August Revolution is the uprising …" defines "August Revolution"; "Đổi Mới là …" "Đổi Mới". */
const DEFINED_SUBJECT: Readonly<Record<ContentLanguage, RegExp>> = {
  en: /^(?:(?:the|a|an)\s+)?([^,;:]{2,60}?)\s+(?:is|are|means|refers to)\s/iu,
  vi: /^([^,;:]{2,60}?)\s+(?:là|được gọi là|có nghĩa là)\s/iu,
};
const MAX_SUBJECT_WORDS = 6;

/** The term a sentence defines, when it opens with "X is …" (X not a pronoun or function word). */
export function definedSubject(sentence: string, language: ContentLanguage): string | null {
  const subject = DEFINED_SUBJECT[language].exec(sentence)?.[1];
  if (!subject) return null;
  const words = splitWords(subject);
  if (words.length === 0 || words.length > MAX_SUBJECT_WORDS || /\p{N}/u.test(subject)) return null;
  return isStopword(termOf(words[0] ?? ""), language) ? null : subject;
}

/** Month names read as capitalised names; they belong to the timeline, not the key terms. */
const MONTH_NAMES = new Set(
  "january february march april may june july august september october november december".split(" "),
);

/** A Vietnamese name is at least two syllables: one capitalised syllable is usually a fragment. */
const isNameFragment = (text: string, language: ContentLanguage) =>
  MONTH_NAMES.has(termOf(text)) || (language === "vi" && splitWords(text).length < 2);

/** The sentence that defines `term`, else the first that mentions it. */
export function definitionOf(term: string, sentences: readonly string[], language: ContentLanguage): string {
  const escaped = escapeRegExp(term);
  const defining = new RegExp(`(?<![\\p{L}\\p{N}])${escaped}\\s+${DEFINING[language]}(?![\\p{L}])`, "iu");
  const mentions = new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, "iu");
  return sentences.find((s) => defining.test(s)) ?? sentences.find((s) => mentions.test(s)) ?? "";
}

/**
 * @example
 * guideTerms(["The Mekong is a river in Asia.", "The Mekong floods."], "en");
 * // [{ term: "Mekong", definition: "The Mekong is a river in Asia." }, ...]
 */
export function guideTerms(sentences: readonly string[], language: ContentLanguage): GuideTerm[] {
  const stats = new Map<string, { text: string; rank: number; count: number; first: number }>();
  const count = (text: string, rank: number, index: number) => {
    const key = foldForCompare(text);
    const seen = stats.get(key);
    if (seen) {
      seen.count += 1;
      seen.rank = Math.min(seen.rank, rank);
    } else stats.set(key, { text, rank, count: 1, first: index });
  };
  const lowerCased = lowerCaseWords(sentences);
  sentences.forEach((sentence, index) => {
    const defined = definedSubject(sentence, language);
    if (defined) count(defined, 0, index);
    for (const term of keyTerms(sentence, language, lowerCased)) {
      if (term.kind === "number" || isNameFragment(term.text, language)) continue;
      count(term.text, term.kind === "name" ? 1 : 2, index);
    }
  });
  const ranked = [...stats.entries()]
    .filter(([, s]) => s.rank < 2 || s.count > 1)
    .sort(([, a], [, b]) => a.rank - b.rank || b.count - a.count || a.first - b.first);
  const chosen: { key: string; text: string }[] = [];
  for (const [key, s] of ranked) {
    if (chosen.length >= MAX_KEY_TERMS) break;
    // "Mekong" and "Mekong River" are one term: the first (better ranked) stands for both.
    if (chosen.some((c) => ` ${c.key} `.includes(` ${key} `) || ` ${key} `.includes(` ${c.key} `))) continue;
    chosen.push({ key, text: s.text });
  }
  return chosen.map(({ text }) => ({ term: text, definition: definitionOf(text, sentences, language) }));
}
