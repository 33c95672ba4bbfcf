import { z } from "zod";
import { type LanguageCode, normalizeLanguage } from "./languages.ts";
import { ErrorMessage, LIVE_FORMAT, LIVE_SAMPLE_RATE, ReadyMessage } from "./live.ts";

/**
 * The real-time translation protocols (spec: realtime-translation.md), shared by the Worker, the
 * LiveSession and TranslationRoom objects and every client. docs/api.md describes them for clients.
 *
 * - Single-device (`/api/v1/ws/single`): a LiveSession in translate mode. The client sends `config`
 *   (source and target language), then binary PCM16 LE 16 kHz mono frames; the server sends
 *   `transcript` messages (interims and finals, each with its translation).
 * - Multi-device rooms (`/api/v1/ws/{conversation_id}?language=xx`): one TranslationRoom object per
 *   conversation. Participants send binary audio; the server sends presence messages, the speaker's
 *   interims to the speaker, and every final, translated into each participant's language, to all.
 */

export { LIVE_FORMAT, LIVE_SAMPLE_RATE };

/** A translation language: a code (or name) the API knows, never `auto`. */
export function translationLanguage(input: string | null | undefined): LanguageCode | null {
  const choice = normalizeLanguage(input);
  return choice.kind === "language" ? choice.code : null;
}

const languageField = z.string().min(1).max(64);

// ---- single-device: client → server (text frames between binary audio) ----

/** Source and target language; may be sent again at any time (it applies from the next utterance). */
export const SingleConfig = z.object({
  type: z.literal("config"),
  /** Spoken language (code or name), or `auto` to detect it per utterance. */
  language: languageField,
  translate_language: languageField,
});
export const SingleEnd = z.object({ type: z.literal("end") });
export const SingleClientMessage = z.discriminatedUnion("type", [SingleConfig, SingleEnd]);
export type SingleClientMessage = z.infer<typeof SingleClientMessage>;

// ---- single-device: server → client ----

const transcriptFields = {
  type: z.literal("transcript"),
  /** Transcript in the spoken language. */
  original: z.string(),
  /** The text in `translation_language`; equals `original` when no translation is needed. */
  translation: z.string(),
  translation_language: z.string(),
  /** The translation backend failed for this message: `translation` is the original text. */
  translation_error: z.boolean().optional(),
  /** Code of the spoken language. */
  language: z.string(),
  /** Interims of one utterance and its final share it. */
  utterance_id: z.string(),
  /** Seconds of stream audio. */
  start: z.number(),
  end: z.number(),
};

/**
 * A transcription result. Finals are always translated; interims only while the translation backend
 * is fast (its moving call time on the node ≤ 150 ms), otherwise their `translation` is "".
 */
export const SingleTranscript = z.object({ ...transcriptFields, is_final: z.boolean() });
export type SingleTranscript = z.infer<typeof SingleTranscript>;
export const SingleServerMessage = z.discriminatedUnion("type", [
  ReadyMessage,
  SingleTranscript,
  ErrorMessage,
]);
export type SingleServerMessage = z.infer<typeof SingleServerMessage>;

// ---- rooms: REST ----

/** POST /api/v1/session/create */
export const SessionCreateRequest = z.strictObject({
  language: languageField,
  translate_language: languageField,
});
export const SessionCreateResponse = z.object({ conversation_id: z.uuid(), join_url: z.url() });
/** GET /api/v1/session/{conversation_id} */
export const SessionDetails = z.object({ user_a_lang: z.string(), user_a_translate: z.string() });
export type SessionDetails = z.infer<typeof SessionDetails>;

/** A room's public path (participants); engines dial in at liveStreamPath, which names no room. */
export const roomSocketPath = (conversationId: string): string =>
  `/api/v1/ws/${encodeURIComponent(conversationId)}`;

/**
 * A participant's id, which every participant sees: a first connect may choose it (when no participant
 * has it), otherwise the room gives one. It never lets anyone into a place: that takes the resume token.
 */
export const CLIENT_ID = /^[A-Za-z0-9_-]{8,64}$/;

/**
 * The secret that lets a participant back into its place (the `resume` query parameter): 256 random
 * bits, base64url, sent only in the participant's own `welcome` and replaced by a fresh one on every
 * join. The room keeps only its SHA-256.
 */
export const RESUME_TOKEN = /^[A-Za-z0-9_-]{43}$/;

// ---- rooms: client → server ----

/** Push-to-talk released: finish my utterance now (the socket stays open). */
export const RoomEnd = z.object({ type: z.literal("end") });
export const RoomClientMessage = z.discriminatedUnion("type", [RoomEnd]);
export type RoomClientMessage = z.infer<typeof RoomClientMessage>;

// ---- rooms: server → client ----

/**
 * First message to a participant: who it is in the room. `resume_token` goes to this participant only:
 * reconnect with `?resume=<token>` (within 30 s of a drop) to keep the place.
 */
export const RoomWelcome = z.object({
  type: z.literal("welcome"),
  conversation_id: z.string(),
  client_id: z.string(),
  resume_token: z.string().regex(RESUME_TOKEN),
  language: z.string(),
  client_count: z.number().int(),
  max_participants: z.number().int(),
  sample_rate: z.literal(LIVE_SAMPLE_RATE),
  format: z.literal(LIVE_FORMAT),
});
export const UserJoined = z.object({
  type: z.literal("user_joined"),
  client_count: z.number().int(),
  client_id: z.string(),
  language: z.string(),
});
export const UserLeft = z.object({
  type: z.literal("user_left"),
  client_count: z.number().int(),
  client_id: z.string(),
});
/**
 * The language this participant's words are translated into for the others: the partner's (the
 * earliest-joined other participant), or the session's `translate_language` while alone.
 * `languages` lists every other participant's language.
 */
export const PartnerLanguage = z.object({
  type: z.literal("partner_language"),
  lang: z.string(),
  languages: z.array(z.string()),
});
/**
 * A transcription result in a room. Interims (`is_interim`) go to the speaker only; each final goes
 * to everyone, its `translation` in the reader's own language (the speaker reads it in the partner's).
 * `history: true` marks the room's recent finals replayed to a participant who just joined.
 */
export const RoomTranscript = z.object({
  ...transcriptFields,
  is_mine: z.boolean(),
  is_interim: z.boolean(),
  /** client_id of the speaker. */
  speaker: z.string(),
  history: z.boolean().optional(),
});
export type RoomTranscript = z.infer<typeof RoomTranscript>;
/** Something went wrong for this participant (the room goes on). */
export const RoomError = ErrorMessage.extend({
  /**
   * bad_frame: odd-length audio; bad_message: a text frame that is not a control message;
   * no_engine: no engine free for this speaker (the speech is not transcribed); engine_error: the
   * engine reported a problem (e.g. it fell behind); engine_lost: the engine went away mid-speech;
   * key_limit: the room creator's API key holds LIVE_MAX_STREAMS_PER_KEY streams already (room speakers
   * count against it); speaker_limit: ROOM_MAX_SPEAKERS others are speaking; max_duration: the
   * speaker's stream reached LIVE_MAX_SESSION_SEC and was ended (speaking on asks for a new one). After
   * a refusal the speech is not transcribed; speaking again once a stream ends works.
   */
  code: z.enum([
    "bad_frame",
    "bad_message",
    "no_engine",
    "engine_error",
    "engine_lost",
    "key_limit",
    "speaker_limit",
    "max_duration",
  ]),
});
export type RoomError = z.infer<typeof RoomError>;
export const RoomServerMessage = z.discriminatedUnion("type", [
  RoomWelcome,
  UserJoined,
  UserLeft,
  PartnerLanguage,
  RoomTranscript,
  RoomError,
]);
export type RoomServerMessage = z.infer<typeof RoomServerMessage>;

/** Close codes of the room socket (4xxx: application codes, RFC 6455 §7.4.2). */
export const RoomClose = {
  /** The participant closed, or left normally. */
  normal: 1000,
  /** A binary frame over LIVE_MAX_FRAME_BYTES. */
  tooBig: 1009,
  /** `language` missing or not one the API knows, or a malformed `client_id` or `resume` token. */
  badRequest: 4400,
  /** No such conversation: never created, or expired. */
  notFound: 4404,
  /** The room expired while connected (ROOM_TTL_SEC without activity). */
  expired: 4408,
  /** The participant reconnected with its resume token on another connection (the newer one stays). */
  replaced: 4409,
  /** The room reached ROOM_MAX_AGE_SEC since it was created, however busy it was. */
  maxAge: 4410,
  /** The room already has ROOM_MAX_PARTICIPANTS participants. */
  full: 4429,
} as const;
