import { z } from "@hono/zod-openapi";
import {
  type NoteSnapshot,
  narrationVoices,
  PODCAST_FORMATS,
  PODCAST_LENGTHS,
} from "../../../protocol/content.ts";
import { communityField } from "../../schemas/content.ts";
import { webhookFields } from "../../schemas/transcribe.ts";
import { badField, type FormFields, oneOf, outputLanguage, voiceId } from "../form-fields.ts";
import type { CreateForm } from "./create-form.ts";
import { overviewLanguage } from "./overview-language.ts";

export const PodcastForm = z
  .object({
    note_id: z.string(),
    format: z
      .enum(PODCAST_FORMATS)
      .optional()
      .openapi({ description: "deep_dive (two hosts, default) or brief (one voice, under two minutes)" }),
    length: z
      .enum(PODCAST_LENGTHS)
      .optional()
      .openapi({ description: "short, default or long: 3/5/8 key points, or 45/75/100 s for a brief" }),
    voice_id: z
      .string()
      .optional()
      .openapi({ description: "host A, from GET /v1/voices (default the language's female voice)" }),
    voice_id_2: z.string().optional().openapi({
      description: "host B of a deep dive, from GET /v1/voices (default the other gender than host A)",
    }),
    language: z.string().optional().openapi({ description: "en or vi; default the note's" }),
    community: communityField,
    ...webhookFields,
  })
  .meta({ id: "PodcastForm" });

/** POST /v2/create/podcast: an audio overview of a note, a deep dive by two hosts or a brief. */
export const podcastForm: CreateForm<"podcast"> = {
  path: "/podcast",
  summary: "Make an audio overview (podcast) of a note: M4A, MP3 and its timed script",
  form: PodcastForm,
  madeIn: (params) => params.language ?? null,
  params: (fields: FormFields) => ({
    format: oneOf(fields, "format", PODCAST_FORMATS, "deep_dive", "invalid_format"),
    length: oneOf(fields, "length", PODCAST_LENGTHS, "default", "invalid_length"),
    voice_id: fields.has("voice_id") ? voiceId(fields) : null,
    voice_id_2: fields.has("voice_id_2") ? voiceId(fields, "voice_id_2") : null,
    language: outputLanguage(fields, "audio overviews"),
  }),
  checkNote: (params, note: NoteSnapshot) => {
    const twoHosts = params.format === "deep_dive";
    const asked = { voice_id: params.voice_id, voice_id_2: twoHosts ? params.voice_id_2 : null };
    const language = overviewLanguage(params.language ?? null, note);
    if (language === null) {
      // The node tells the note's language from its text; only a voice given twice is wrong anyway.
      if (asked.voice_id && asked.voice_id === asked.voice_id_2) {
        throw badField(
          "duplicate_voice",
          "voice_id and voice_id_2 are the same voice: a deep dive has two hosts",
        );
      }
      return;
    }
    const voices = narrationVoices(language, asked, twoHosts);
    if (!voices.ok) throw badField(voices.problem, voices.message);
  },
};
