import { z } from "@hono/zod-openapi";
import { translationSourceLanguage } from "../../../protocol/content.ts";
import { communityField } from "../../schemas/content.ts";
import { webhookFields } from "../../schemas/transcribe.ts";
import { badField, type FormFields, flag, outputLanguage } from "../form-fields.ts";
import type { CreateForm } from "./create-form.ts";

export const NoteTranslationForm = z
  .object({
    note_id: z.string(),
    language: z
      .string()
      .openapi({ description: "the translation's language: en or vi (not the note's own)" }),
    community: communityField,
    ...webhookFields,
  })
  .meta({ id: "NoteTranslationForm" });

/** `language`: required here, the target of the translation. */
function targetLanguage(fields: FormFields): "en" | "vi" {
  const language = outputLanguage(fields, "note translation");
  if (!language) throw badField("missing_field", "language is required");
  return language;
}

/** POST /v2/create/translation: the note in another language, kept as a new note of the caller's. */
export const noteTranslationForm: CreateForm<"note_translation"> = {
  path: "/translation",
  summary: "Translate a note into a new note (en or vi)",
  form: NoteTranslationForm,
  madeIn: (params) => params.language ?? null,
  params: (fields: FormFields) => ({
    language: targetLanguage(fields),
    community: flag(fields, "community"),
  }),
  checkNote: (params, note) => {
    if (translationSourceLanguage(note) === params.language) {
      throw badField(
        "same_language",
        `the note is already in "${params.language}": ask for another language`,
      );
    }
  },
};
