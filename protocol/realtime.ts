/**
 * OpenAI's Realtime transcription events, as `/v1/realtime` speaks them (the subset a transcription
 * session uses; docs/api.md "Realtime transcription"). Both generations of the wire are read: the GA
 * `session.update` with `session.type: "transcription"` and the beta `transcription_session.update`;
 * the server answers in the generation the client used. Field names follow the `openai` package's
 * types (resources/realtime/realtime.d.ts) so its realtime client reads our events unchanged.
 */
import { z } from "zod";

/** The only input format taken: 16-bit little-endian mono PCM at 24 kHz (OpenAI's `pcm16`). */
export const REALTIME_SAMPLE_RATE = 24_000;
/**
 * Largest text frame a realtime client may send: an `input_audio_buffer.append` of up to 64 KiB of
 * audio (1.4 s at 24 kHz) in base64, with its JSON around it. OpenAI allows larger appends; a
 * bounded frame keeps one message from holding the session object (clients send 20–100 ms chunks).
 */
export const REALTIME_MAX_EVENT_CHARS = 96 * 1024;
/** Least audio a manual `input_audio_buffer.commit` needs, as OpenAI answers ("buffer too small"). */
export const REALTIME_MIN_COMMIT_MS = 100;

const eventId = z.string().max(64).optional();

const transcription = z
  .object({
    model: z.string().max(64).optional(),
    language: z.string().max(64).nullable().optional(),
    prompt: z.string().max(4_000).nullable().optional(),
  })
  .nullable()
  .optional();

/** GA `session.update`: `audio.input.format` is `{type: "audio/pcm", rate: 24000}` or a G.711 type. */
const GaFormat = z.object({ type: z.string().max(32), rate: z.number().optional() }).optional();
export const GaSessionUpdate = z.object({
  type: z.literal("session.update"),
  event_id: eventId,
  session: z.object({
    type: z.string().max(32),
    audio: z
      .object({
        input: z
          .object({ format: GaFormat, transcription, turn_detection: z.unknown().optional() })
          .optional(),
      })
      .optional(),
    include: z.array(z.string().max(64)).max(8).optional(),
  }),
});

/** Beta `transcription_session.update`: `input_audio_format` is "pcm16" or a G.711 name. */
export const BetaSessionUpdate = z.object({
  type: z.literal("transcription_session.update"),
  event_id: eventId,
  session: z.object({
    input_audio_format: z.string().max(32).optional(),
    input_audio_transcription: transcription,
    turn_detection: z.unknown().optional(),
    include: z.array(z.string().max(64)).max(8).optional(),
  }),
});

export const AudioAppend = z.object({
  type: z.literal("input_audio_buffer.append"),
  event_id: eventId,
  audio: z.string(),
});
export const AudioCommit = z.object({ type: z.literal("input_audio_buffer.commit"), event_id: eventId });
export const AudioClear = z.object({ type: z.literal("input_audio_buffer.clear"), event_id: eventId });

/** What a realtime transcription client may send. */
export const RealtimeClientEvent = z.discriminatedUnion("type", [
  GaSessionUpdate,
  BetaSessionUpdate,
  AudioAppend,
  AudioCommit,
  AudioClear,
]);
export type RealtimeClientEvent = z.infer<typeof RealtimeClientEvent>;

/** Which generation of the wire a client speaks: decides the names of the session events. */
export type RealtimeWire = "ga" | "beta";

/** The session as the server reports it (`session.created` / `transcription_session.created` and updates). */
export interface RealtimeSessionSettings {
  id: string;
  model: string;
  /** ISO-639-1 code, or null for detection. */
  language: string | null;
  prompt: string | null;
}

/** OpenAI's error object inside an `error` event. */
export interface RealtimeError {
  type: "invalid_request_error" | "server_error";
  code: string | null;
  message: string;
  param: string | null;
  event_id: string | null;
}
