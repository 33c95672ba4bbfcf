import { z } from "zod";

/**
 * Spoken translations on a room speaker's engine link (protocol/live.ts `SessionToNode` and
 * `NodeToSession` carry these): the room asks the node that already serves the speaker's stream to
 * speak one final in one language, once per language, and the node answers on the same socket. No
 * other connection, queue or outbound call is needed, and the Durable Object keeps no TTS of its own.
 */

/** Longest text the room asks to be spoken (characters); a longer final is not spoken. */
export const SPEECH_MAX_TEXT_CHARS = 1_000;
/**
 * Largest audio one answer may carry (bytes before base64): ~20 s of the node's 16 kHz PCM16 WAV.
 * Its base64 (~853 KiB) with the message stays under the 1 MiB a WebSocket message may be everywhere.
 */
export const SPEECH_MAX_AUDIO_BYTES = 640 * 1024;
const SPEECH_MAX_AUDIO_BASE64 = Math.ceil(SPEECH_MAX_AUDIO_BYTES / 3) * 4;

/** Why speech could not be made: no TTS on the node (or no voice for the language), or it failed. */
export const SpeechFailureCode = z.enum(["tts_unavailable", "tts_failed"]);
export type SpeechFailureCode = z.infer<typeof SpeechFailureCode>;

/** The audio types an answer may carry. */
export const SpeechContentType = z.enum(["audio/wav", "audio/mpeg"]);
export type SpeechContentType = z.infer<typeof SpeechContentType>;

const speechId = z.string().min(1).max(64);

/** Room → node: speak `text` in `language`; answered with `synthesized` or `synthesis_failed`. */
export const SynthesizeRequest = z.object({
  type: z.literal("synthesize"),
  id: speechId,
  text: z.string().min(1).max(SPEECH_MAX_TEXT_CHARS),
  language: z.string().min(2).max(16),
});
export type SynthesizeRequest = z.infer<typeof SynthesizeRequest>;

/** Node → room: the speech of one request, base64, with its length in seconds. */
export const SynthesizedMessage = z.object({
  type: z.literal("synthesized"),
  id: speechId,
  content_type: SpeechContentType,
  duration: z.number().nonnegative().max(3_600),
  audio: z.string().min(1).max(SPEECH_MAX_AUDIO_BASE64),
});
export type SynthesizedMessage = z.infer<typeof SynthesizedMessage>;

/** Node → room: the request could not be spoken. */
export const SynthesisFailedMessage = z.object({
  type: z.literal("synthesis_failed"),
  id: speechId,
  code: SpeechFailureCode,
  message: z.string().max(500),
});
export type SynthesisFailedMessage = z.infer<typeof SynthesisFailedMessage>;
