import { z } from "@hono/zod-openapi";
import { CONTENT_OUTPUT_ROLES, CONTENT_STEPS } from "../../protocol/content.ts";
import { webhookStateFields } from "./tasks.ts";
import { webhookFields } from "./transcribe.ts";

/** Wire shapes of the content service: catalogs, the create acknowledgement, the task poll. */

export const VoiceEntry = z
  .object({
    voice_id: z.string(),
    name: z.string(),
    language: z.string(),
    gender: z.enum(["male", "female"]),
    engine: z.string(),
    sample_url: z.string().openapi({ description: "a short spoken sample (MP3); no API key needed" }),
  })
  .meta({ id: "Voice" });
export const VoiceList = z.object({ voices: z.array(VoiceEntry) }).meta({ id: "VoiceList" });

export const BackgroundEntry = z
  .object({
    bg_id: z.string(),
    name: z.string(),
    kind: z.string().openapi({ description: "gradient, pattern or solid: generated, no licensed assets" }),
    preview_url: z.string().openapi({ description: "a PNG thumbnail; no API key needed" }),
  })
  .meta({ id: "Background" });
export const BackgroundList = z
  .object({ backgrounds: z.array(BackgroundEntry) })
  .meta({ id: "BackgroundList" });

export const TemplateEntry = z
  .object({
    template_id: z.string(),
    kind: z.enum(["slide", "quiz_video"]),
    name: z.string(),
    preview_url: z.string().openapi({ description: "a PNG thumbnail; no API key needed" }),
  })
  .meta({ id: "Template" });
export const TemplateList = z.object({ templates: z.array(TemplateEntry) }).meta({ id: "TemplateList" });

export const CreateAccepted = z
  .object({
    status: z.literal("PROCESSING"),
    data: z.object({
      task_id: z.string().openapi({ description: "poll GET /v1/create/tasks/{task_id}/result" }),
      user_id: z.string().openapi({
        description:
          "who owns the task: the API key's id, or the user's id (a user JWT's subject, or the X-Voxedge-User a service key acted for)",
      }),
    }),
  })
  .meta({ id: "CreateAccepted" });
export type CreateAccepted = z.infer<typeof CreateAccepted>;

const Pending = z.object({ status: z.literal("PENDING"), ...webhookStateFields });
const Processing = z.object({
  status: z.literal("PROCESSING"),
  step: z
    .string()
    .optional()
    .openapi({ description: `one of ${CONTENT_STEPS.join(", ")}` }),
  progress: z.number().min(0).max(100).optional().openapi({ description: "never goes back" }),
  estimated_time: z.number().min(0).optional().openapi({ description: "seconds left, from measured speeds" }),
  ...webhookStateFields,
});
/** One file a finished render made, with a fresh signed link (a Voxedge addition to the spec's data). */
export const ContentFileLink = z
  .object({
    role: z
      .enum(CONTENT_OUTPUT_ROLES)
      .openapi({ description: "what the file is: video, audio, pdf, apkg, …" }),
    content_type: z.string(),
    bytes: z.number().int().min(0),
    url: z.string().openapi({ description: "signed, expires like the spec's *_url fields" }),
  })
  .meta({ id: "ContentFileLink" });
export type ContentFileLink = z.infer<typeof ContentFileLink>;

const SuccessData = z.looseObject({
  note_id: z.string().optional(),
  title: z.string().optional(),
  type: z.string().optional(),
  duration: z.number().optional(),
  video_url: z.string().optional(),
  audio_url: z.string().optional(),
  slide_url: z.string().optional(),
  slide_pdf_url: z.string().optional(),
  files: z.array(ContentFileLink).optional().openapi({ description: "every file the render made" }),
});
export type SuccessData = z.infer<typeof SuccessData>;
const Success = z.object({
  status: z.literal("SUCCESS"),
  data: SuccessData,
  message: z.string().optional(),
  ...webhookStateFields,
});
const Failure = z.object({
  status: z.literal("FAILURE"),
  error: z.string(),
  error_key: z.string().openapi({ description: "stable code; docs/api.md lists them" }),
  message: z.string(),
  ...webhookStateFields,
});

export const TaskResultResponse = z
  .union([Pending, Processing, Success, Failure])
  .meta({ id: "CreateTaskResult" });
export type TaskResultResponse = z.infer<typeof TaskResultResponse>;

const boolText = z.string().openapi({ description: "true, false, 1 or 0" });
/** `community`: the spec's on /v2/create/slide; on shorts and quiz videos a Voxedge addition. */
export const communityField = boolText.optional().openapi({
  description:
    "true: note_id may be any published community note (GET /v1/community/notes); the content is yours",
});

export const ShortsForm = z
  .object({
    note_id: z.string(),
    voice_id: z.string().openapi({ description: "from GET /v1/voices" }),
    clip_duration: z.string().optional().openapi({ description: "seconds, 5..180 (default 30)" }),
    is_audio_only: boolText.optional(),
    bg_id: z.string().optional().openapi({ description: "from GET /v1/backgrounds" }),
    aspect: z
      .string()
      .optional()
      .openapi({ description: "9:16 (1080x1920, default), 16:9 (1920x1080) or 1:1 (1080x1080)" }),
    community: communityField,
    ...webhookFields,
  })
  .meta({ id: "ShortsForm" });

export const QuizVideoForm = z
  .object({
    note_id: z.string(),
    voice_id: z.string(),
    bg_id: z.string().optional(),
    template_id: z
      .string()
      .optional()
      .openapi({ description: "a quiz_video template from GET /v1/templates" }),
    community: communityField,
    ...webhookFields,
  })
  .meta({ id: "QuizVideoForm" });

export const SlideForm = z
  .object({
    note_id: z.string(),
    template_id: z.string().openapi({ description: "a slide template from GET /v1/templates" }),
    language: z.string().optional().openapi({ description: "en or vi; default the note's" }),
    slide_count_range: z
      .string()
      .optional()
      .openapi({ description: "a-b with 1 <= a <= b <= 30 (default 5-8)" }),
    community: communityField,
    ...webhookFields,
  })
  .meta({ id: "SlideForm" });

export const TaskIdParam = z.object({
  task_id: z
    .string()
    .min(1)
    .max(128)
    .openapi({ param: { name: "task_id", in: "path" } }),
});

export const PreviewParam = z.object({
  file: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: "file", in: "path" }, example: "voice-en-female.mp3" }),
});
