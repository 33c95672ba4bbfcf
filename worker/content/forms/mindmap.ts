import { z } from "@hono/zod-openapi";
import { communityField } from "../../schemas/content.ts";
import { webhookFields } from "../../schemas/transcribe.ts";
import { type FormFields, flag, outputLanguage } from "../form-fields.ts";
import type { CreateForm } from "./create-form.ts";

export const MindMapForm = z
  .object({
    note_id: z.string(),
    language: z.string().optional().openapi({ description: "en or vi; default the note's" }),
    community: communityField,
    ...webhookFields,
  })
  .meta({ id: "MindMapForm" });

/** POST /v2/create/mindmap: a note's mind map, as JSON, OPML, Markdown, SVG and PNG. */
export const mindMapForm: CreateForm<"mindmap"> = {
  path: "/mindmap",
  summary: "Make a mind map (JSON, OPML, Markdown, SVG and PNG) from a note",
  form: MindMapForm,
  madeIn: (params) => params.language ?? null,
  params: (fields: FormFields) => ({
    language: outputLanguage(fields, "mind maps"),
    community: flag(fields, "community"),
  }),
};
