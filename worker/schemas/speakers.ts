import { z } from "@hono/zod-openapi";
import { ENROLLED_CLIP, MAX_SPEAKER_NAME_CHARS } from "../../protocol/speakers.ts";

/** An enrolled speaker (/v1/speakers), in the shape of OpenAI's own resources (`object`, `created_at`). */
export const Speaker = z
  .object({
    id: z.string().openapi({ example: "spk_0f8e4a6b2c1d4e5f9a7b3c2d1e0f4a5b" }),
    object: z.literal("speaker"),
    name: z.string().openapi({
      description: "unique per API key; what known_speakers names and what results carry as speaker_name",
      example: "agent",
    }),
    created_at: z.number().int().openapi({ description: "Unix seconds" }),
    bytes: z.number().int().openapi({ description: "size of the stored reference clip" }),
    content_type: z
      .string()
      .openapi({ description: "the clip's container, from its first bytes", example: "audio/wav" }),
    duration_sec: z.number().nullable().openapi({
      description:
        "the clip's length when the Worker could read it (a PCM or float WAV); null for other containers",
    }),
  })
  .meta({ id: "Speaker" });
export type Speaker = z.infer<typeof Speaker>;

export const SpeakerList = z
  .object({
    object: z.literal("list"),
    data: z.array(Speaker).openapi({ description: "every enrolled speaker of the key, oldest first" }),
    has_more: z
      .literal(false)
      .openapi({ description: "always false: a key keeps at most SPEAKERS_MAX_PER_KEY" }),
  })
  .meta({ id: "SpeakerList" });
export type SpeakerList = z.infer<typeof SpeakerList>;

export const SpeakerDeleted = z
  .object({ id: z.string(), object: z.literal("speaker.deleted"), deleted: z.literal(true) })
  .meta({ id: "SpeakerDeleted" });
export type SpeakerDeleted = z.infer<typeof SpeakerDeleted>;

export const SpeakerIdParam = z.object({
  speaker_id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "speaker_id", in: "path" } }),
});

const name = z.string().openapi({
  description: `1-${MAX_SPEAKER_NAME_CHARS} characters once trimmed, no comma, not \`all\` and not a SPEAKER_nn label; unique per API key`,
  example: "agent",
});
const clipRule = `${ENROLLED_CLIP.minSec}-${ENROLLED_CLIP.maxSec} s of one voice, at most ${ENROLLED_CLIP.maxBytes / 1024 / 1024} MiB`;

/** The multipart enrolment form, for the OpenAPI document only (the route reads the body itself). */
export const EnrolSpeakerForm = z
  .object({
    name,
    file: z.string().openapi({
      format: "binary",
      description: `the reference clip (WAV, MP3, M4A, OGG, FLAC, WebM...): ${clipRule}`,
    }),
  })
  .meta({ id: "EnrolSpeakerForm" });
export const enrolSpeakerFormRef = { $ref: "#/components/schemas/EnrolSpeakerForm" };

/** The JSON (or urlencoded form) enrolment: the clip as a data URL, as known_speaker_references[] takes it. */
export const EnrolSpeakerJson = z
  .object({
    name,
    reference: z.string().openapi({
      description: `the reference clip as a data URL (data:audio/wav;base64,...): ${clipRule}`,
    }),
  })
  .meta({ id: "EnrolSpeakerJson" });
export const enrolSpeakerJsonRef = { $ref: "#/components/schemas/EnrolSpeakerJson" };
