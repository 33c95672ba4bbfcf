import { z } from "@hono/zod-openapi";
import {
  DEFAULT_CARD_COUNT,
  FLASHCARD_DIFFICULTIES,
  MAX_CARD_COUNT,
} from "../../../protocol/flashcards-params.ts";
import { communityField } from "../../schemas/content.ts";
import { webhookFields } from "../../schemas/transcribe.ts";
import { type FormFields, flag, oneOf, outputLanguage, wholeNumber } from "../form-fields.ts";
import type { CreateForm } from "./create-form.ts";

export const FlashcardsForm = z
  .object({
    note_id: z.string(),
    count: z
      .string()
      .optional()
      .openapi({ description: `cards wanted, 1..${MAX_CARD_COUNT} (default ${DEFAULT_CARD_COUNT})` }),
    difficulty: z
      .enum(FLASHCARD_DIFFICULTIES)
      .optional()
      .openapi({ description: "easy: term → definition; medium (default) and hard: cloze" }),
    language: z.string().optional().openapi({ description: "en or vi; default the note's" }),
    community: communityField,
    ...webhookFields,
  })
  .meta({ id: "FlashcardsForm" });

/** POST /v2/create/flashcards: study cards from a note, as JSON, CSV and an Anki package. */
export const flashcardsForm: CreateForm<"flashcards"> = {
  path: "/flashcards",
  summary: "Make flashcards (JSON, CSV and an Anki .apkg) from a note",
  form: FlashcardsForm,
  madeIn: (params) => params.language ?? null,
  params: (fields: FormFields) => ({
    count: wholeNumber(fields, "count", {
      min: 1,
      max: MAX_CARD_COUNT,
      fallback: DEFAULT_CARD_COUNT,
      errorKey: "invalid_count",
    }),
    difficulty: oneOf(fields, "difficulty", FLASHCARD_DIFFICULTIES, "medium", "invalid_difficulty"),
    language: outputLanguage(fields, "flashcards"),
    community: flag(fields, "community"),
  }),
};
