import type { SuccessData } from "../api/types.ts";

/**
 * What the previews read from a finished task's data beyond its files: flash cards, quiz questions, a
 * podcast's chapters, a translation's new note. The data is the server's (a loose object); an entry
 * that does not have the expected shape is left out rather than shown half.
 */
export interface Flashcard {
  front: string;
  back: string;
}
export interface QuizQuestion {
  question: string;
  options: string[];
  answerIndex: number;
  explanation: string;
}
export interface Chapter {
  title: string;
  /** Seconds from the start. */
  start: number;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null;
const listOf = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? value.filter(isRecord) : [];
const isText = (value: unknown): value is string => typeof value === "string";

/** @example cardsOf({ cards: [{ front: "Mekong", back: "a river", tags: [] }] }) // [{ front: "Mekong", back: "a river" }] */
export function cardsOf(data: SuccessData): Flashcard[] {
  return listOf(data.cards).flatMap(({ front, back }) =>
    isText(front) && isText(back) ? [{ front, back }] : [],
  );
}

/** Questions whose answer_index points at one of their options. */
export function questionsOf(data: SuccessData): QuizQuestion[] {
  return listOf(data.questions).flatMap(({ question, options, answer_index, explanation }) => {
    if (!isText(question) || !Array.isArray(options) || !options.every(isText)) return [];
    if (!Number.isInteger(answer_index) || (answer_index as number) < 0) return [];
    if ((answer_index as number) >= options.length) return [];
    return [
      {
        question,
        options,
        answerIndex: answer_index as number,
        explanation: isText(explanation) ? explanation : "",
      },
    ];
  });
}

/** Chapters in the order of their start. */
export function chaptersOf(data: SuccessData): Chapter[] {
  return listOf(data.chapters)
    .flatMap(({ title, start }) =>
      isText(title) && typeof start === "number" && start >= 0 ? [{ title, start }] : [],
    )
    .sort((a, b) => a.start - b.start);
}

/** A translation's new note (data.note_id is the note it made, not the one it came from). */
export const newNoteOf = (data: SuccessData): string | null =>
  isText(data.note_id) && data.note_id ? data.note_id : null;
