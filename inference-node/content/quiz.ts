/**
 * Multiple-choice questions from a note. Extractive by default: a key sentence becomes a cloze
 * question, its key term the answer, and terms of the same kind from elsewhere in the note the
 * distractors. An OpenAI-compatible LLM writes them when configured. Either way no question
 * leaves here with two options that read the same (case and diacritics ignored).
 *
 * Difficulty (the quiz kind's; the quiz video keeps `medium`): `easy` asks about the note's most
 * central sentences with wrong options as unlike the answer as the note offers; `medium` asks about
 * the central sentences with wrong options shaped like the answer (as many words); `hard` asks
 * about the details (the least central sentences first) with the wrong options closest to the
 * answer (nearest numbers, same length and shape).
 */
import { z } from "zod";
import type { NoteSnapshot, QuizDifficulty } from "../../protocol/content.ts";
import { ContentError } from "./errors.ts";
import { type KeyTerm, keyTerms, lowerCaseWords, rankSentences } from "./keywords.ts";
import { chatComplete, extractJson, type LlmConfig } from "./llm.ts";
import {
  type ContentLanguage,
  LANGUAGE_NAMES,
  noteSentences,
  type TranslateFn,
  toLanguage,
} from "./script.ts";
import { foldForCompare, noteLanguage, splitWords } from "./text.ts";

export interface QuizQuestion {
  question: string;
  /** Four options, pairwise distinct after folding. */
  options: string[];
  answer_index: number;
  /** One line said and shown after the reveal. */
  explanation: string;
}

export interface QuizRequest {
  note: NoteSnapshot;
  language: ContentLanguage;
  /** How many questions at most (at least MIN_QUESTIONS are always required). */
  maxQuestions: number;
  /**
   * Exactly this many questions when the note yields them (at least min(count, MIN_QUESTIONS));
   * absent: sized to the note, one per three sentences from MIN_QUESTIONS to maxQuestions.
   */
  count?: number;
  /** Default `medium`. */
  difficulty?: QuizDifficulty;
}

export const MIN_QUESTIONS = 3;
export const OPTION_COUNT = 4;
export const BLANK = "_____";

/**
 * @example
 * const questions = await writer.write({ note, language: "en", maxQuestions: 3 }, signal);
 */
export interface QuizWriter {
  write(request: QuizRequest, signal: AbortSignal): Promise<QuizQuestion[]>;
}

/** True when no two options fold to the same text and none is blank. */
export function optionsAreDistinct(options: readonly string[]): boolean {
  const folded = options.map(foldForCompare);
  return folded.every((f) => f.length > 0) && new Set(folded).size === folded.length;
}

/** Stable pseudo-random order from a seed (the same note gives the same quiz). */
function seededShuffle<T>(items: readonly T[], seed: string): T[] {
  let state = [...seed].reduce((h, c) => (Math.imul(h, 31) + (c.codePointAt(0) ?? 0)) | 0, 7) >>> 0;
  const next = () => {
    state = (Math.imul(state ^ (state >>> 15), 2246822519) + 0x9e3779b9) >>> 0;
    return state / 2 ** 32;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Plausible wrong numbers near `text` (years stay years), written like the original. */
function numberVariants(text: string): string[] {
  const value = asNumber(text);
  if (!Number.isFinite(value)) return [];
  const isYear = Number.isInteger(value) && value >= 1000 && value <= 2100;
  const steps = isYear
    ? [10, -10, 5, -5, 20]
    : [value * 1, -value / 2, Math.max(1, Math.round(value * 0.25)), 1, 2];
  const format = (n: number) => (text.includes(",") ? n.toLocaleString("en-US") : String(n));
  return steps
    .map((step) => Math.round(value + step))
    .filter((n) => n > 0 && n !== value)
    .map(format);
}

const KIND_ORDER: KeyTerm["kind"][] = ["number", "name", "word"];

const asNumber = (text: string) => Number(text.replace(/,/g, ""));

/** The folded letter pairs of a text (for the Dice similarity of two options). */
function letterPairs(text: string): Set<string> {
  const folded = foldForCompare(text);
  const pairs = new Set<string>();
  for (let i = 0; i + 1 < folded.length; i += 1) pairs.add(folded.slice(i, i + 2));
  return pairs;
}

/**
 * How far a wrong option is from the answer, 0 = the same: for two numbers their ratio on a log
 * scale, else 1 minus the Dice similarity of their letter pairs. `easy` tries the farthest first,
 * `hard` the nearest.
 */
export function optionDistance(answer: string, option: string): number {
  const [a, b] = [asNumber(answer), asNumber(option)];
  if (a > 0 && b > 0) return Math.abs(Math.log(a / b));
  const [x, y] = [letterPairs(answer), letterPairs(option)];
  const shared = [...x].filter((pair) => y.has(pair)).length;
  return x.size + y.size > 0 ? 1 - (2 * shared) / (x.size + y.size) : 0;
}

/**
 * Candidate distractors in the order a difficulty tries them (already shuffled by the seed). Options
 * shaped like the answer (as many words) come first at every level, so none stands out by its length;
 * within a shape `easy` takes the farthest and `hard` the nearest.
 */
function orderDistractors(candidates: string[], answer: string, difficulty: QuizDifficulty): string[] {
  const size = splitWords(answer).length;
  const shape = (text: string) => Math.abs(splitWords(text).length - size);
  const closeness = { easy: -1, medium: 0, hard: 1 }[difficulty];
  return candidates.sort(
    (a, b) => shape(a) - shape(b) || closeness * (optionDistance(answer, a) - optionDistance(answer, b)),
  );
}

function clip(sentence: string, maxWords: number): string {
  const words = splitWords(sentence);
  return words.length <= maxWords ? sentence : `${words.slice(0, maxWords).join(" ")}…`;
}

/**
 * Cloze questions from the note's highest-ranked sentences (`hard`: its lowest-ranked first).
 *
 * @example
 * extractiveQuestions(sentences, "en", 3, "note-1")[0];
 * // { question: "The Mekong flows through _____ countries.", options: ["6", "3", "12", "8"], answer_index: 0, ... }
 */
export function extractiveQuestions(
  sentences: readonly string[],
  language: ContentLanguage,
  maxQuestions: number,
  seed: string,
  difficulty: QuizDifficulty = "medium",
): QuizQuestion[] {
  const lowerCased = lowerCaseWords(sentences);
  // A word still capitalised only opened its sentence and may be a name: as an option among lower-case
  // ones it would give the answer away, so it is neither asked for nor offered.
  const termsBySentence = sentences.map((s) =>
    keyTerms(s, language, lowerCased).filter((t) => t.kind !== "word" || !/^\p{Lu}/u.test(t.text)),
  );
  const pool = termsBySentence.flat();
  const scores = rankSentences(sentences);
  const direction = difficulty === "hard" ? -1 : 1;
  const order = sentences.map((_, i) => i).sort((a, b) => direction * ((scores[b] ?? 0) - (scores[a] ?? 0)));
  const questions: { index: number; question: QuizQuestion }[] = [];
  const usedAnswers = new Set<string>();
  for (const index of order) {
    if (questions.length >= maxQuestions) break;
    const sentence = sentences[index] ?? "";
    if (splitWords(sentence).length < 5) continue;
    const candidates = [...(termsBySentence[index] ?? [])].sort(
      (a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || b.text.length - a.text.length,
    );
    for (const answer of candidates) {
      const folded = foldForCompare(answer.text);
      if (usedAnswers.has(folded)) continue;
      const inSentence = foldForCompare(sentence);
      const sameKind = pool.filter((t) => t.kind === answer.kind).map((t) => t.text);
      const others = [...sameKind, ...(answer.kind === "number" ? numberVariants(answer.text) : [])];
      const distractors: string[] = [];
      const ordered = orderDistractors(seededShuffle(others, `${seed}:${index}`), answer.text, difficulty);
      for (const text of ordered) {
        const option = foldForCompare(text);
        if (
          !option ||
          inSentence.includes(option) ||
          !optionsAreDistinct([answer.text, ...distractors, text])
        )
          continue;
        distractors.push(text);
        if (distractors.length === OPTION_COUNT - 1) break;
      }
      if (distractors.length < OPTION_COUNT - 1) continue;
      const options = seededShuffle([answer.text, ...distractors], `${seed}:${index}:options`);
      questions.push({
        index,
        question: {
          question: sentence.replace(answer.written, BLANK),
          options,
          answer_index: options.indexOf(answer.text),
          explanation: clip(sentence, 24),
        },
      });
      usedAnswers.add(folded);
      break;
    }
  }
  return questions.sort((a, b) => a.index - b.index).map((q) => q.question);
}

/** A quiz size that suits the note: one question per three sentences, 3..maxQuestions. */
export function questionTarget(sentenceCount: number, maxQuestions: number): number {
  return Math.max(MIN_QUESTIONS, Math.min(maxQuestions, Math.floor(sentenceCount / 3)));
}

/** The fewest questions a request accepts: MIN_QUESTIONS, or its count when it asks for fewer. */
const fewestQuestions = (request: QuizRequest) => Math.min(request.count ?? MIN_QUESTIONS, MIN_QUESTIONS);

export class ExtractiveQuizWriter implements QuizWriter {
  constructor(private readonly translate?: TranslateFn) {}

  async write(request: QuizRequest, signal: AbortSignal): Promise<QuizQuestion[]> {
    const { note, language, maxQuestions } = request;
    const from = noteLanguage(note.language, note.content);
    const sentences = noteSentences(note);
    const questions = extractiveQuestions(
      sentences,
      from,
      request.count ?? questionTarget(sentences.length, maxQuestions),
      note.note_id,
      request.difficulty,
    );
    const fewest = fewestQuestions(request);
    if (questions.length < fewest) {
      throw new ContentError(
        "note_too_short",
        `the note yields ${questions.length} quiz question(s); at least ${fewest} are needed`,
      );
    }
    if (from === language) return questions;
    const translated: QuizQuestion[] = [];
    for (const q of questions) {
      const t = (text: string) => toLanguage(text, from, language, this.translate, signal);
      const options = await Promise.all(q.options.map(t));
      // Two options can translate to the same words; keep the original wording then.
      translated.push({
        question: await t(q.question),
        options: optionsAreDistinct(options) ? options : q.options,
        answer_index: q.answer_index,
        explanation: await t(q.explanation),
      });
    }
    return translated;
  }
}

const LlmQuiz = z.object({
  questions: z.array(
    z.object({
      question: z.string().min(1),
      options: z.array(z.string().min(1)).length(OPTION_COUNT),
      answer_index: z
        .number()
        .int()
        .min(0)
        .max(OPTION_COUNT - 1),
      explanation: z.string().default(""),
    }),
  ),
});

/** What each difficulty asks of the chat model (the same rule as the extractive writer's). */
const LLM_DIFFICULTY: Record<QuizDifficulty, string> = {
  easy: "Make it easy: ask about the note's main ideas, with wrong options clearly unlike the right one.",
  medium: "Make it of medium difficulty: ask about the note's key facts, with plausible wrong options.",
  hard: "Make it hard: ask about specific details, with wrong options close to the right one (nearby numbers, similar names).",
};

export class LlmQuizWriter implements QuizWriter {
  constructor(private readonly config: LlmConfig) {}

  async write(request: QuizRequest, signal: AbortSignal): Promise<QuizQuestion[]> {
    const { note, language } = request;
    const maxQuestions = request.count ?? request.maxQuestions;
    const howMany =
      request.count === undefined ? `${MIN_QUESTIONS} to ${maxQuestions}` : `exactly ${request.count}`;
    const answer = await chatComplete(
      this.config,
      [
        {
          role: "system",
          content:
            `Write ${howMany} multiple-choice questions in ${LANGUAGE_NAMES[language]} ` +
            "about the note, using only its facts. Each has exactly 4 different options, one correct, and a " +
            `one-sentence explanation. ${LLM_DIFFICULTY[request.difficulty ?? "medium"]} ` +
            'Answer with JSON only: {"questions": [{"question": "...", ' +
            '"options": ["...", "...", "...", "..."], "answer_index": 0, "explanation": "..."}]}',
        },
        { role: "user", content: `Title: ${note.title}\n\n${note.content.slice(0, 24_000)}` },
      ],
      signal,
    );
    const parsed = LlmQuiz.safeParse(extractJson(answer));
    if (!parsed.success)
      throw new ContentError("llm_failed", "the LLM's quiz does not match the expected shape");
    const questions = parsed.data.questions
      .filter((q) => optionsAreDistinct(q.options))
      .slice(0, maxQuestions);
    const fewest = fewestQuestions(request);
    if (questions.length < fewest) {
      throw new ContentError(
        "llm_failed",
        `the LLM gave ${questions.length} usable question(s); ${fewest} needed`,
      );
    }
    return questions.map((q) => ({ ...q, explanation: q.explanation || q.options[q.answer_index] || "" }));
  }
}
