import { z } from "@hono/zod-openapi";
import { MAX_DETECT_LANGUAGES } from "../../protocol/transcribe-params.ts";
import { MAX_CONTEXT_CHARS } from "./transcribe.ts";

/**
 * Wire resources of the OpenAI-compatible endpoints (/v1), shaped as OpenAI's API documents them
 * (openai-node src/resources/audio/transcriptions.ts, models.ts). docs/api.md explains each field.
 */

export const RESPONSE_FORMATS = ["json", "verbose_json", "text", "srt", "vtt", "diarized_json"] as const;
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number];
/** What /v1/audio/translations answers in: OpenAI's translations have no diarized_json. */
export const TRANSLATION_FORMATS = ["json", "verbose_json", "text", "srt", "vtt"] as const;
export const GRANULARITIES = ["segment", "word"] as const;
export type Granularity = (typeof GRANULARITIES)[number];

/**
 * OpenAI's `server_vad` chunking: checked as OpenAI documents it (threshold 0..1, the two
 * durations whole milliseconds); the node's Silero VAD applies it (protocol/transcribe-params.ts `Chunking`).
 */
export const ServerVadChunking = z
  .strictObject({
    type: z.literal("server_vad"),
    threshold: z.coerce.number().min(0).max(1).optional(),
    prefix_padding_ms: z.coerce.number().int().min(0).optional(),
    silence_duration_ms: z.coerce.number().int().min(0).optional(),
  })
  .meta({ id: "OpenAIServerVadChunking" });
export const ChunkingStrategy = z.union([z.literal("auto"), ServerVadChunking]);

const textFields = {
  model: z.string().max(256).optional().openapi({
    description: "accepted and ignored: the deployment serves its registry's default model",
    example: "whisper-1",
  }),
  prompt: z.string().max(MAX_CONTEXT_CHARS).default("").openapi({
    description: "text to condition decoding on (names, jargon); stored as the task's context",
  }),
  response_format: z.string().max(64).default("json").openapi({
    description: "json (default), verbose_json, text, srt or vtt; anything else is a 400",
  }),
  temperature: z.coerce.number().finite().optional().openapi({
    description: "accepted and ignored: decoding is greedy from 0 with whisper's own fallback",
  }),
  timestamp_granularities: z
    .array(z.string().max(16))
    .max(4)
    .default([])
    .openapi({
      description:
        "`segment` and/or `word`, sent as `timestamp_granularities[]` (repeated) or `timestamp_granularities`; " +
        "`word` adds top-level `words` to verbose_json",
    }),
};
const language = z.string().max(64).optional().openapi({
  description: "ISO-639-1 code or name; omitted means auto-detect; an unsupported one is a 400",
  example: "en",
});

/** `keywords[]`: how many, and how long each may be. */
export const MAX_KEYWORDS = 50;
export const MAX_KEYWORD_CHARS = 100;

const list = (description: string) =>
  z.array(z.string().max(256)).max(8).default([]).openapi({ description });

/** The text fields of POST /v1/audio/transcriptions, checked once the streamed form is read. */
export const TranscriptionFormFields = z.object({
  ...textFields,
  language,
  chunking_strategy: ChunkingStrategy.optional().openapi({
    description:
      '`auto` or `{"type":"server_vad", threshold?, prefix_padding_ms?, silence_duration_ms?}`, sent as ' +
      "`chunking_strategy[type]` etc. or as a JSON string. Unset: every sample is decoded. `auto`: the node's " +
      "Silero VAD leaves out non-speech stretches with its own settings. `server_vad`: `threshold` is the VAD's " +
      "speech probability, non-speech longer than `silence_duration_ms` (default 200) is left out except " +
      "`prefix_padding_ms` (default 300) at each edge",
  }),
  include: list(
    "`logprobs` (json, streamed or not): the decoder's tokens with `token`, `logprob` and `bytes`; anything else is a 400",
  ),
  keywords: z
    .array(z.string().max(MAX_KEYWORD_CHARS))
    .max(MAX_KEYWORDS)
    .default([])
    .openapi({
      description: `words or phrases to bias decoding towards (at most ${MAX_KEYWORDS}, each one line of at most ${MAX_KEYWORD_CHARS} characters without < or >); they join the prompt`,
    }),
  languages: z.array(z.string().max(64)).max(MAX_DETECT_LANGUAGES).default([]).openapi({
    description:
      "the possible languages of the audio (ISO-639-1): one is the same as `language`; several restrict detection to them; with `language` a 400",
  }),
  known_speaker_names: list(
    "names for the voices of `known_speaker_references[]`, in the same order (at most 4, diarized_json only)",
  ),
  known_speaker_references: z
    .array(z.string())
    .max(8)
    .default([])
    .openapi({
      description:
        "2-10 s reference clips as data URLs (`data:audio/wav;base64,...`, any container `file` takes), " +
        "one per name; each value at most 2.5 MiB, all of them together at most 8 MiB",
    }),
  stream: z.enum(["true", "false"]).default("false").openapi({
    description: "`false` (default); `true` is a 400: the transcript comes in one response",
  }),
  known_speakers: z
    .string()
    .max(2048)
    .optional()
    .openapi({
      description:
        "Voxedge extension, diarized_json only: enrolled speakers (POST /v1/speakers) to name speakers after, " +
        "comma-separated or `all`, beside any known_speaker_names[]; at most 16 voices in all",
    }),
});
export type TranscriptionFormFields = z.infer<typeof TranscriptionFormFields>;

/**
 * The text fields of POST /v1/audio/translations: no `language` (it is detected); output is English
 * unless `target_language` (a Voxedge extension) asks for another language.
 */
export const TranslationFormFields = z.object({
  ...textFields,
  target_language: z
    .string()
    .max(16)
    .default("en")
    .openapi({
      description:
        "Voxedge extension: ISO 639-1 code of the output language, default `en` (whisper's own translation). " +
        "Another language is transcribed, then translated segment by segment by the nodes' translation " +
        "backend; a code that is not a language is a 400 (`invalid_value`), one no connected backend " +
        "translates into a 400 (`unsupported_value`) listing the pairs available",
      example: "es",
    }),
});
export type TranslationFormFields = z.infer<typeof TranslationFormFields>;

const file = z.string().openapi({ format: "binary", description: "audio or video file, at most 2 GB" });

/** The forms for the OpenAPI document only: routes refer to them by $ref so the body streams. */
export const TranscriptionForm = TranscriptionFormFields.extend({ file }).meta({
  id: "OpenAITranscriptionForm",
});
export const TranslationForm = TranslationFormFields.extend({ file }).meta({ id: "OpenAITranslationForm" });
export const transcriptionFormRef = { $ref: "#/components/schemas/OpenAITranscriptionForm" };
export const translationFormRef = { $ref: "#/components/schemas/OpenAITranslationForm" };

/** OpenAI's usage of a model billed by audio duration: whole seconds, rounded up. */
export const OpenAIDurationUsage = z
  .object({ type: z.literal("duration"), seconds: z.number().int() })
  .meta({ id: "OpenAIDurationUsage" });
export type OpenAIDurationUsage = z.infer<typeof OpenAIDurationUsage>;

const usage = OpenAIDurationUsage.optional().openapi({
  description: "transcriptions only (translations carry none): the audio's duration in whole seconds",
});

/** One decoded token of `include[]=logprobs`. */
export const OpenAILogprob = z
  .object({ token: z.string(), logprob: z.number(), bytes: z.array(z.number().int()) })
  .meta({ id: "OpenAITranscriptionLogprob" });

/** `response_format=json`. */
export const OpenAITranscription = z
  .object({
    text: z.string(),
    usage,
    logprobs: z.array(OpenAILogprob).optional().openapi({ description: "with `include[]=logprobs`" }),
    languages: z
      .array(z.object({ code: z.string() }))
      .optional()
      .openapi({ description: "the detected language, when the request named none (a transcription)" }),
  })
  .meta({ id: "OpenAITranscription" });
export type OpenAITranscription = z.infer<typeof OpenAITranscription>;

export const OpenAISegment = z
  .object({
    id: z.number().int(),
    seek: z.number().int(),
    start: z.number(),
    end: z.number(),
    text: z.string(),
    tokens: z.array(z.number().int()),
    temperature: z.number(),
    avg_logprob: z.number(),
    compression_ratio: z.number(),
    no_speech_prob: z.number(),
  })
  .meta({ id: "OpenAISegment" });
export type OpenAISegment = z.infer<typeof OpenAISegment>;

export const OpenAIWord = z
  .object({ word: z.string(), start: z.number(), end: z.number() })
  .meta({ id: "OpenAIWord" });
export type OpenAIWord = z.infer<typeof OpenAIWord>;

/** `response_format=verbose_json`. */
export const OpenAITranscriptionVerbose = z
  .object({
    task: z.enum(["transcribe", "translate"]),
    language: z.string().openapi({ description: "full lower-case name, e.g. `english`" }),
    duration: z.number(),
    text: z.string(),
    segments: z.array(OpenAISegment),
    words: z.array(OpenAIWord).optional().openapi({ description: "only with the `word` granularity" }),
    usage,
  })
  .meta({ id: "OpenAITranscriptionVerbose" });
export type OpenAITranscriptionVerbose = z.infer<typeof OpenAITranscriptionVerbose>;

export const OpenAIDiarizedSegment = z
  .object({
    type: z.literal("transcript.text.segment"),
    id: z.string(),
    start: z.number(),
    end: z.number(),
    text: z.string(),
    speaker: z.string().openapi({ description: "`A`, `B`, … in order of first appearance" }),
  })
  .meta({ id: "OpenAIDiarizedSegment" });
export type OpenAIDiarizedSegment = z.infer<typeof OpenAIDiarizedSegment>;

/** `response_format=diarized_json` (transcriptions only). */
export const OpenAITranscriptionDiarized = z
  .object({
    task: z.literal("transcribe"),
    duration: z.number(),
    text: z.string(),
    segments: z.array(OpenAIDiarizedSegment),
    usage: OpenAIDurationUsage,
  })
  .meta({ id: "OpenAITranscriptionDiarized" });
export type OpenAITranscriptionDiarized = z.infer<typeof OpenAITranscriptionDiarized>;

export const OpenAIModel = z
  .object({
    id: z.string(),
    object: z.literal("model"),
    created: z.number().int(),
    owned_by: z.string(),
  })
  .meta({ id: "OpenAIModel" });
export type OpenAIModel = z.infer<typeof OpenAIModel>;

export const OpenAIModelList = z
  .object({ object: z.literal("list"), data: z.array(OpenAIModel) })
  .meta({ id: "OpenAIModelList" });
export type OpenAIModelList = z.infer<typeof OpenAIModelList>;

export const OpenAIModelParam = z.object({
  model: z
    .string()
    .min(1)
    .max(256)
    .openapi({ param: { name: "model", in: "path" }, example: "whisper-1" }),
});

/** Every error on /v1, in OpenAI's envelope. */
export const OpenAIErrorBody = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.string(),
      param: z.string().nullable(),
      code: z.string().nullable(),
    }),
  })
  .meta({ id: "OpenAIError" });
export type OpenAIErrorBody = z.infer<typeof OpenAIErrorBody>;
