/**
 * The flashcards kind's params (POST /v2/create/flashcards, resolved): how many cards, how hard, and
 * in which language. The node's card generator takes its options from here, so the wire's bounds and
 * the generator's are one.
 */
import { z } from "zod";
import { NoteSnapshot } from "./content-params.ts";

export const FLASHCARD_DIFFICULTIES = ["easy", "medium", "hard"] as const;
export type FlashcardDifficulty = (typeof FLASHCARD_DIFFICULTIES)[number];

export const DEFAULT_CARD_COUNT = 10;
export const MAX_CARD_COUNT = 50;

/** What a flashcards render is asked for besides the note (the wire's `count` and `difficulty`). */
export const FlashcardOptions = z.object({
  count: z.number().int().min(1).max(MAX_CARD_COUNT).default(DEFAULT_CARD_COUNT),
  difficulty: z.enum(FLASHCARD_DIFFICULTIES).default("medium"),
});
export type FlashcardOptions = z.infer<typeof FlashcardOptions>;

/** POST /v2/create/flashcards, resolved. `language` null: the note's own. */
export const FlashcardsParams = FlashcardOptions.extend({
  note: NoteSnapshot,
  language: z.enum(["en", "vi"]).nullable().default(null),
  community: z.boolean().default(false),
});
export type FlashcardsParams = z.infer<typeof FlashcardsParams>;
