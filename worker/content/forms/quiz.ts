import { z } from "@hono/zod-openapi";
import { QUIZ_COUNT, QUIZ_DIFFICULTIES } from "../../../protocol/content.ts";
import { webhookFields } from "../../schemas/transcribe.ts";
import { type FormFields, oneOf, outputLanguage, wholeNumber } from "../form-fields.ts";
import type { CreateForm } from "./create-form.ts";

export const QuizForm = z
  .object({
    note_id: z.string(),
    count: z
      .string()
      .optional()
      .openapi({
        description: `questions, ${QUIZ_COUNT.min}..${QUIZ_COUNT.max} (default ${QUIZ_COUNT.fallback})`,
      }),
    difficulty: z.enum(QUIZ_DIFFICULTIES).optional().openapi({
      description:
        "easy: the note's main sentences, wrong options unlike the answer; hard: its details, wrong options close to the answer (default medium)",
    }),
    language: z
      .string()
      .optional()
      .openapi({ description: "en or vi; default the note's (translated when it differs)" }),
    community: z
      .string()
      .optional()
      .openapi({ description: "true: note_id may be a published community note" }),
    ...webhookFields,
  })
  .meta({ id: "QuizForm" });

/** POST /v2/create/quiz: multiple-choice questions as JSON, Moodle XML, GIFT and a printable PDF. */
export const quizForm: CreateForm<"quiz"> = {
  path: "/quiz",
  summary: "Make a quiz (JSON, Moodle XML, GIFT, printable PDF) from a note",
  form: QuizForm,
  madeIn: (params) => params.language ?? null,
  params: (fields: FormFields) => ({
    count: wholeNumber(fields, "count", { ...QUIZ_COUNT, errorKey: "invalid_count" }),
    difficulty: oneOf(fields, "difficulty", QUIZ_DIFFICULTIES, "medium", "invalid_difficulty"),
    language: outputLanguage(fields, "quizzes"),
  }),
};
