/**
 * Flashcards from a note. Extractive by default (no model): each card comes from one sentence of the
 * note, and the difficulty decides which sentences and what is asked:
 *
 * - easy: term → definition. The front is the term a defining sentence ("X is ...", "X là ...")
 *   defines, or else a name the sentence is about; the back is the sentence. Most prominent first.
 * - medium: cloze. The front is a prominent sentence with its key term (a number, then a name, then
 *   a content word) blanked; the back is the term.
 * - hard: cloze of a content word (before names and numbers, which are easier to recall) in the less
 *   prominent sentences, the details a reader skims.
 *
 * An OpenAI-compatible chat model writes the cards instead when an LlmConfig is given. Either way no
 * two cards leave here with fronts that read the same (case and diacritics ignored).
 */
import { z } from "zod";
import type { NoteSnapshot } from "../../../protocol/content.ts";
import type { FlashcardDifficulty, FlashcardOptions } from "../../../protocol/flashcards-params.ts";
import { ContentError } from "../errors.ts";
import { type KeyTerm, keyTerms, rankSentences } from "../keywords.ts";
import { chatComplete, extractJson, type LlmConfig } from "../llm.ts";
import { LANGUAGE_NAMES } from "../script.ts";
import { foldForCompare, noteLanguage, noteSections, splitWords, termOf } from "../text.ts";

/** A sentence shorter than this says too little to be asked about. */
export const MIN_SENTENCE_WORDS = 5;
export const BLANK = "_____";

export interface Flashcard {
  front: string;
  back: string;
  /** The note's sentence the card was made from (the model's quote on the LLM path). */
  source_sentence: string;
  /** Anki-style tags: no spaces inside one. */
  tags: string[];
}

export interface FlashcardSet {
  title: string;
  language: "en" | "vi";
  difficulty: FlashcardDifficulty;
  source: "extractive" | "llm";
  cards: Flashcard[];
}

/** A tag from free text: Anki splits tags at spaces, so words are joined with "_" (diacritics kept). */
export function tagOf(text: string): string {
  return text.trim().toLowerCase().split(/\s+/).filter(Boolean).join("_");
}

/** Keeps the first card of each front (folded for case and diacritics), at most `count`. */
export function distinctFronts(cards: readonly Flashcard[], count: number): Flashcard[] {
  const seen = new Set<string>();
  const kept: Flashcard[] = [];
  for (const card of cards) {
    const key = foldForCompare(card.front);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    kept.push(card);
    if (kept.length === count) break;
  }
  return kept;
}

/** A copula that makes a sentence define its subject: "X is a ...", "X là ...". */
const DEFINING = {
  en: /^(.{2,60}?)\s+(?:is|are|was|were|means|refers to)\s+\S/u,
  vi: /^(.{2,60}?)\s+là\s+\S/u,
} as const;

/** The term a defining sentence defines ("The Mekong is ..." → "Mekong"), or null. */
export function definedTerm(sentence: string, language: "en" | "vi"): string | null {
  const subject = DEFINING[language].exec(sentence)?.[1];
  if (!subject || /[,;:]/.test(subject)) return null;
  const words = splitWords(subject);
  // A leading article is part of the sentence, not of the term.
  const start = language === "en" && ["the", "a", "an"].includes(termOf(words[0] ?? "")) ? 1 : 0;
  const term = words.slice(start).join(" ");
  return words.length - start >= 1 && words.length - start <= 6 ? term : null;
}

interface SourceSentence {
  text: string;
  heading: string | null;
  score: number;
}

const CLOZE_ORDER: Record<"medium" | "hard", KeyTerm["kind"][]> = {
  medium: ["number", "name", "word"],
  hard: ["word", "name", "number"],
};

function cardFrom(
  sentence: SourceSentence,
  difficulty: FlashcardDifficulty,
  language: "en" | "vi",
): Flashcard | null {
  const terms = keyTerms(sentence.text, language);
  const tags = (kind: string) => [difficulty, kind, ...(sentence.heading ? [tagOf(sentence.heading)] : [])];
  if (difficulty === "easy") {
    const defined = definedTerm(sentence.text, language);
    const term = defined ?? terms.find((t) => t.kind === "name")?.text;
    if (!term) return null;
    return { front: term, back: sentence.text, source_sentence: sentence.text, tags: tags("definition") };
  }
  const order = CLOZE_ORDER[difficulty];
  const answer = [...terms].sort(
    (a, b) => order.indexOf(a.kind) - order.indexOf(b.kind) || b.text.length - a.text.length,
  )[0];
  if (!answer) return null;
  return {
    front: sentence.text.replace(answer.written, BLANK),
    back: answer.written, // what fills the blank, capital and all
    source_sentence: sentence.text,
    tags: tags("cloze"),
  };
}

/**
 * Cards from the note's own sentences: at most one per sentence of MIN_SENTENCE_WORDS words or more,
 * so a short note gives fewer than `count`.
 *
 * @example
 * extractiveFlashcards(note, { count: 2, difficulty: "easy" }).map((c) => c.front); // ["Mekong", "Mekong Delta"]-ish
 */
export function extractiveFlashcards(note: NoteSnapshot, options: FlashcardOptions): Flashcard[] {
  const language = noteLanguage(note.language, note.content);
  const sentences = noteSections(note.content, language).flatMap((section) =>
    section.sentences.map((text) => ({ text, heading: section.heading })),
  );
  const scores = rankSentences(sentences.map((s) => s.text));
  const eligible = sentences
    .map((s, i): SourceSentence & { index: number } => ({ ...s, score: scores[i] ?? 0, index: i }))
    .filter((s) => splitWords(s.text).length >= MIN_SENTENCE_WORDS);
  // Easy and medium ask about what the note stresses; hard about what it mentions in passing.
  // Easy takes the sentences that define something first: they make the best term → definition cards.
  const defines = (s: SourceSentence) =>
    options.difficulty === "easy" && definedTerm(s.text, language) !== null ? 1 : 0;
  const byProminence = [...eligible].sort(
    (a, b) =>
      defines(b) - defines(a) || (options.difficulty === "hard" ? a.score - b.score : b.score - a.score),
  );
  const chosen: { index: number; card: Flashcard }[] = [];
  const seen = new Set<string>();
  for (const sentence of byProminence) {
    if (chosen.length === options.count) break;
    const card = cardFrom(sentence, options.difficulty, language);
    const key = card && foldForCompare(card.front);
    if (!card || !key || seen.has(key)) continue;
    seen.add(key);
    chosen.push({ index: sentence.index, card });
  }
  // Back in note order: a deck reads like the note.
  return chosen.sort((a, b) => a.index - b.index).map((c) => c.card);
}

const LlmCards = z.object({
  cards: z.array(
    z.object({
      front: z.string().trim().min(1),
      back: z.string().trim().min(1),
      source_sentence: z.string().default(""),
      tags: z.array(z.string()).default([]),
    }),
  ),
});

const DIFFICULTY_PROMPTS: Record<FlashcardDifficulty, string> = {
  easy: "term on the front, its definition from the note on the back",
  medium: "a key sentence with its key term replaced by _____ on the front, the term on the back",
  hard: "a question about a detail the note mentions in passing on the front, the short answer on the back",
};

/** Cards written by the configured chat model from the note's facts. */
export async function llmFlashcards(
  config: LlmConfig,
  note: NoteSnapshot,
  options: FlashcardOptions,
  signal: AbortSignal,
): Promise<Flashcard[]> {
  const language = noteLanguage(note.language, note.content);
  const answer = await chatComplete(
    config,
    [
      {
        role: "system",
        content:
          `Write ${options.count} flashcards in ${LANGUAGE_NAMES[language]} about the note, using only its ` +
          `facts: ${DIFFICULTY_PROMPTS[options.difficulty]}. No two cards have the same front. Answer with ` +
          'JSON only: {"cards": [{"front": "...", "back": "...", "source_sentence": "the note\'s sentence", ' +
          '"tags": ["..."]}]}',
      },
      { role: "user", content: `Title: ${note.title}\n\n${note.content.slice(0, 24_000)}` },
    ],
    signal,
  );
  const parsed = LlmCards.safeParse(extractJson(answer));
  if (!parsed.success)
    throw new ContentError("llm_failed", "the LLM's flashcards do not match the expected shape");
  const cards = parsed.data.cards.map((card) => ({
    ...card,
    tags: [options.difficulty, ...card.tags.map(tagOf).filter(Boolean)],
  }));
  return distinctFronts(cards, options.count);
}

/**
 * The flashcards of a note: from the chat model when `llm` is given, else extractive.
 *
 * @example
 * const set = await generateFlashcards(note, { count: 10, difficulty: "easy" }, { llm: null, signal });
 */
export async function generateFlashcards(
  note: NoteSnapshot,
  options: FlashcardOptions,
  { llm, signal }: { llm: LlmConfig | null; signal: AbortSignal },
): Promise<FlashcardSet> {
  const language = noteLanguage(note.language, note.content);
  const sentences = noteSections(note.content, language).flatMap((s) => s.sentences);
  // Checked before any model is asked: an empty note is the caller's mistake, not the model's.
  if (!sentences.some((s) => splitWords(s).length >= MIN_SENTENCE_WORDS)) {
    throw new ContentError(
      "note_too_short",
      `the note has no sentence of ${MIN_SENTENCE_WORDS} words or more to make a flashcard from`,
    );
  }
  const cards = llm ? await llmFlashcards(llm, note, options, signal) : extractiveFlashcards(note, options);
  if (cards.length === 0) {
    throw llm
      ? new ContentError("llm_failed", "the LLM gave no usable flashcard")
      : new ContentError(
          "note_too_short",
          `the note has nothing to make a ${options.difficulty} flashcard from`,
        );
  }
  return {
    title: note.title.trim() || (cards[0]?.front ?? ""),
    language,
    difficulty: options.difficulty,
    source: llm ? "llm" : "extractive",
    cards,
  };
}
