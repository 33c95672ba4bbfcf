import { z } from "zod";
import { MAX_KNOWN_SPEAKERS_PER_JOB } from "./speakers.ts";

/** Speech to text in its own language, or whisper's own speech → English. */
export const SPEECH_TASKS = ["transcribe", "translate"] as const;
export const SpeechTask = z.enum(SPEECH_TASKS);
export type SpeechTask = z.infer<typeof SpeechTask>;

/**
 * A voice the diarizer should name (the compatible API's known_speaker_names[] with its reference clip):
 * the clip is in R2 under `object_key`, which the node reads through its lease
 * (`/internal/v1/leases/{lease_id}/speakers/{index}`).
 */
export const KnownSpeaker = z.object({
  name: z.string().min(1).max(256),
  object_key: z.string(),
  /** An enrolled voice's clip (/v1/speakers): 2-30 s (protocol/speakers.ts) rather than OpenAI's 2-10 s. */
  enrolled: z.boolean().optional(),
});
export type KnownSpeaker = z.infer<typeof KnownSpeaker>;

/**
 * How the node cuts the audio before whisper decodes it (the compatible endpoint's
 * `chunking_strategy`). `none`: every sample is decoded in whisper's 30 s windows (OpenAI's "transcribed
 * as a single block" when the field is unset). `auto`: non-speech stretches the Silero VAD finds are
 * left out with the node's own settings. `server_vad`: the same with the request's speech threshold,
 * the audio kept at each edge of a stretch, and the shortest stretch left out. Absent: `auto`.
 */
export const Chunking = z.union([
  z.literal("none"),
  z.literal("auto"),
  z.object({
    type: z.literal("server_vad"),
    threshold: z.number().min(0).max(1),
    prefix_padding_ms: z.number().int().min(0),
    silence_duration_ms: z.number().int().min(0),
  }),
]);
export type Chunking = z.infer<typeof Chunking>;

/** OpenAI's documented defaults for a `server_vad` object's omitted properties. */
export const SERVER_VAD_DEFAULTS = {
  threshold: 0.5,
  prefix_padding_ms: 300,
  silence_duration_ms: 200,
} as const;

/** The most languages `languages[]` may restrict detection to. */
export const MAX_DETECT_LANGUAGES = 10;

/**
 * The parameters of a transcription task: written by every enqueue route (async and OpenAI-compatible),
 * stored with the task, shown in /history as HistoryEntryParams, and read by the node. This is the one
 * definition; nothing else describes them.
 */
export const TranscribeParams = z
  .object({
    /** The registry's default model: the deployment serves it whatever `model` a request names. */
    model_id: z.string(),
    /** Normalised short code; null means auto-detect. */
    language: z.string().nullable(),
    /** Prompt for decoding (the model's system turn). */
    context: z.string().default(""),
    task: SpeechTask.default("transcribe"),
    /**
     * `translate` only: the language (code) to translate the speech into when it is not English; the
     * node transcribes, then translates every segment with its translation backend. Absent: English,
     * by whisper itself.
     */
    target_language: z.string().min(2).max(3).optional(),
    /** Word timings for the OpenAI-compatible endpoints (verbose_json with the word granularity). */
    word_timestamps: z.boolean().default(false),
    /**
     * The node reports each decoded window's text as it goes (the compatible endpoint's `stream=true`);
     * the result is the same either way. Absent: false.
     */
    stream_partials: z.boolean().optional(),
    /** The compatible endpoint's requested format, kept so the history shows how the job was asked. */
    response_format: z.string().optional(),
    /** Set for media that went through object storage (uploads, presigned PUTs); null otherwise. */
    object_key: z.string().nullable().default(null),
    /** Set for jobs enqueued from a URL; null otherwise. */
    file_url: z.string().nullable().default(null),
    /**
     * With `language` null: the languages detection may choose among (the compatible endpoint's
     * `languages[]` with several); absent: any language the model knows.
     */
    detect_languages: z.array(z.string().min(2).max(3)).min(2).max(MAX_DETECT_LANGUAGES).optional(),
    /** The decoder's per-token log probabilities in the detail (the compatible `include[]=logprobs`). */
    logprobs: z.boolean().optional(),
    /**
     * Voices to name speakers after, in the order given (a compatible call's at most 4, an async job's
     * enrolled voices at most MAX_KNOWN_SPEAKERS_PER_JOB); absent for anonymous labels.
     */
    known_speakers: z.array(KnownSpeaker).max(MAX_KNOWN_SPEAKERS_PER_JOB).optional(),
    /** What the Silero VAD leaves out before decoding ({@link Chunking}); absent: `auto`. */
    chunking: Chunking.optional(),
  })
  .meta({ id: "HistoryEntryParams" });
export type TranscribeParams = z.infer<typeof TranscribeParams>;
export type TranscribeParamsInput = z.input<typeof TranscribeParams>;
