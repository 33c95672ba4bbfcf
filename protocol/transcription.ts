import { z } from "zod";

/** One timed piece of a transcript. */
export const Segment = z
  .object({
    start: z.number(),
    end: z.number(),
    start_fmt: z.string(),
    end_fmt: z.string(),
    text: z.string(),
    speaker: z.string().nullable().default(null),
    /**
     * Voxedge extension: the enrolled speaker (/v1/speakers, a job's `known_speakers`) whose voice
     * `speaker`'s cluster matched; absent when none did.
     */
    speaker_name: z.string().optional(),
  })
  .meta({ id: "Segment" });
export type Segment = z.infer<typeof Segment>;

export const SpeakerTurn = z
  .object({
    start: z.number(),
    end: z.number(),
    speaker: z.string(),
    /** The enrolled speaker whose voice this turn's cluster matched (as on Segment); absent when none did. */
    speaker_name: z.string().optional(),
  })
  .meta({ id: "SpeakerTurn" });
export type SpeakerTurn = z.infer<typeof SpeakerTurn>;

/** The result of a transcription task, field for field as the speech-to-text spec lists it. */
export const TranscriptionResult = z
  .object({
    text: z.string(),
    raw_text: z.string(),
    language: z.string(),
    model: z.string(),
    duration_sec: z.number(),
    asr_ms: z.number(),
    diarize_ms: z.number().default(0),
    total_ms: z.number().default(0),
    rtf: z.number(),
    segments: z.array(Segment).default([]),
    segment_count: z.number().int().default(0),
    has_timestamps: z.boolean().default(false),
    speaker_turns: z.array(SpeakerTurn).nullable().default(null),
    speakers_pending: z.boolean().default(false),
    translation: z.string().nullable().default(null),
    audio_url: z.string().nullable().default(null),
  })
  .meta({ id: "TranscriptionResult" });
export type TranscriptionResult = z.infer<typeof TranscriptionResult>;
