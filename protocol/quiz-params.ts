/** POST /v2/create/quiz, resolved: what a quiz task carries to the node. */
import { z } from "zod";
import { ContentTaskResult, NoteSnapshot } from "./content-params.ts";

/** How hard a quiz is: which sentences it asks about and how close its wrong options are. */
export const QUIZ_DIFFICULTIES = ["easy", "medium", "hard"] as const;
export const QuizDifficulty = z.enum(QUIZ_DIFFICULTIES);
export type QuizDifficulty = z.infer<typeof QuizDifficulty>;

/** How many questions a quiz may ask for, and its default. */
export const QUIZ_COUNT = { min: 1, max: 20, fallback: 5 } as const;

/** A quiz (JSON, Moodle XML, GIFT, printable PDF). `language` null: the note's own language. */
export const QuizParams = z.object({
  note: NoteSnapshot,
  count: z.number().int().min(QUIZ_COUNT.min).max(QUIZ_COUNT.max).default(QUIZ_COUNT.fallback),
  difficulty: QuizDifficulty.default("medium"),
  language: z.enum(["en", "vi"]).nullable().default(null),
});
export type QuizParams = z.infer<typeof QuizParams>;

/** What a finished quiz keeps: the content result with its difficulty and questions asked. */
export const QuizResult = ContentTaskResult.extend({
  difficulty: QuizDifficulty,
  question_count: z.number().int().min(1),
});
export type QuizResult = z.infer<typeof QuizResult>;
