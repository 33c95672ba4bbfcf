import { z } from "@hono/zod-openapi";
import { webhookFields } from "../../schemas/transcribe.ts";
import { type FormFields, outputLanguage } from "../form-fields.ts";
import type { CreateForm } from "./create-form.ts";

export const StudyGuideForm = z
  .object({
    note_id: z.string(),
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
  .meta({ id: "StudyGuideForm" });

/** POST /v2/create/study-guide: summary, key terms, questions and timeline as Markdown and PDF. */
export const studyGuideForm: CreateForm<"study_guide"> = {
  path: "/study-guide",
  summary: "Make a study guide (Markdown and PDF) from a note",
  form: StudyGuideForm,
  madeIn: (params) => params.language ?? null,
  params: (fields: FormFields) => ({ language: outputLanguage(fields, "study guides") }),
};
