/**
 * Which words of an English sentence are nouns, read by compromise's part-of-speech tagger over the
 * whole sentence (its lexicon and context rules). Key terms are nouns: a quiz asking for "happens" or
 * a mind-map branch called "absorbs" teaches nothing, and "Oxygen" opening a sentence is its subject,
 * not a name.
 */
import nlp from "compromise";
import { splitWords } from "./text.ts";

/** The part of compromise's `json({ offset: true })` read here. */
interface TaggedSentence {
  terms: { offset: { start: number }; tags: string[] }[];
}

export interface WordClass {
  noun: boolean;
  /** A proper noun: a place, person or organisation ("Mekong", "Vietnam"). */
  proper: boolean;
}

const LEXICON: Readonly<Record<string, unknown>> = (
  nlp as unknown as { model(): { one: { lexicon: Record<string, unknown> } } }
).model().one.lexicon;

/**
 * True when compromise's lexicon knows `word` in lower case as a common word ("oxygen", "scientists").
 * An unknown word is not taken for one: "Saigon" opening a sentence is tagged a noun, like "glucose".
 */
export function isKnownCommonWord(word: string): boolean {
  const lower = word.toLowerCase();
  if (LEXICON[lower] === undefined) return false;
  const tags = nlp(lower).json()[0]?.terms[0]?.tags ?? [];
  return !tags.includes("ProperNoun");
}

/**
 * The class of each word of `splitWords(sentence)`, in order. A hyphenated word is classed by its
 * head, the last part ("by-product": a noun); pronouns are not nouns here.
 *
 * @example
 * englishWordClasses("Oxygen is released."); // [{ noun: true, proper: false }, { noun: false, ... }, { noun: false, ... }]
 */
export function englishWordClasses(sentence: string): WordClass[] {
  const sentences: TaggedSentence[] = nlp(sentence).json({ offset: true, text: false, normal: false });
  const tagged = sentences.flatMap((s) => s.terms);
  let cursor = 0;
  return splitWords(sentence).map((word) => {
    const start = sentence.indexOf(word, cursor);
    const end = start + word.length;
    cursor = end;
    const head = tagged.filter((t) => t.offset.start >= start && t.offset.start < end).at(-1);
    const tags = new Set(head?.tags ?? []);
    const noun = tags.has("Noun") && !tags.has("Pronoun");
    return { noun, proper: noun && tags.has("ProperNoun") };
  });
}
