import { z } from "@hono/zod-openapi";
import {
  DEFAULT_OVERVIEW_TEMPLATE_ID,
  type NoteSnapshot,
  narrationVoices,
} from "../../../protocol/content.ts";
import { communityField } from "../../schemas/content.ts";
import { webhookFields } from "../../schemas/transcribe.ts";
import { badField, type FormFields, flag, outputLanguage, templateId, voiceId } from "../form-fields.ts";
import type { CreateForm } from "./create-form.ts";
import { overviewLanguage } from "./overview-language.ts";

export const VideoOverviewForm = z
  .object({
    note_id: z.string(),
    template_id: z
      .string()
      .optional()
      .openapi({
        description: `a slide template from GET /v1/templates (default ${DEFAULT_OVERVIEW_TEMPLATE_ID})`,
      }),
    voice_id: z
      .string()
      .optional()
      .openapi({ description: "the narrator, from GET /v1/voices (default the language's female voice)" }),
    language: z.string().optional().openapi({ description: "en or vi; default the note's" }),
    community: communityField,
    ...webhookFields,
  })
  .meta({ id: "VideoOverviewForm" });

/** POST /v2/create/video-overview: the note's slide deck, narrated, as a 1920x1080 video with captions. */
export const videoOverviewForm: CreateForm<"video_overview"> = {
  path: "/video-overview",
  summary: "Make a video overview of a note: its slides narrated, with captions (MP4, SRT, VTT, PDF)",
  form: VideoOverviewForm,
  madeIn: (params) => params.language ?? null,
  params: (fields: FormFields) => ({
    template_id: templateId(fields, "slide", DEFAULT_OVERVIEW_TEMPLATE_ID),
    voice_id: fields.has("voice_id") ? voiceId(fields) : null,
    language: outputLanguage(fields, "video overviews"),
    community: flag(fields, "community"),
  }),
  checkNote: (params, note: NoteSnapshot) => {
    const language = overviewLanguage(params.language ?? null, note);
    if (language === null) return;
    const voices = narrationVoices(language, { voice_id: params.voice_id }, false);
    if (!voices.ok) throw badField(voices.problem, voices.message);
  },
};
