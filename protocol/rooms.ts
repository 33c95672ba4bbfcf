import { z } from "zod";
import { type LanguageCode, normalizeLanguage } from "./languages.ts";
import { ErrorMessage, LIVE_FORMAT, LIVE_SAMPLE_RATE, ReadyMessage } from "./live.ts";
import { SpeechContentType } from "./live-speech.ts";

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
export const SessionCreateResponse = z.object({
  conversation_id: z.uuid(),
  join_url: z.url(),
  /**
   * The room's host credential (an addition to the spec's fields): 256 random bits, base64url, returned
   * here only and never sent to any participant; the room keeps its SHA-256. With it (header
   * `X-Host-Token`), or with the API key that created the room, the host controls the room.
   */
  host_token: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
});
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

/** What a participant may do: speak (its audio is transcribed), or only listen. */
export const ParticipantRole = z.enum(["speaker", "listener"]);
export type ParticipantRole = z.infer<typeof ParticipantRole>;

/** A display name (`name` query parameter) is trimmed and at most this many characters. */
export const NAME_MAX_CHARS = 64;
// C0/C1 controls, and the bidirectional overrides that could make a name read as someone else's text
const NAME_FORBIDDEN = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/u;

/**
 * A participant's display name, checked: trimmed, 1..NAME_MAX_CHARS characters, no control or
 * bidirectional-override characters. Null when absent or blank; a string says what is wrong.
 *
 * @example displayName("  Ana  "); // { ok: true, name: "Ana" }
 */
export function displayName(
  input: string | null,
): { ok: true; name: string | null } | { ok: false; reason: string } {
  const name = input?.trim() ?? "";
  if (name === "") return { ok: true, name: null };
  if ([...name].length > NAME_MAX_CHARS)
    return { ok: false, reason: `name is longer than ${NAME_MAX_CHARS} characters` };
  if (NAME_FORBIDDEN.test(name)) return { ok: false, reason: "name must not contain control characters" };
  return { ok: true, name };
}

/** One participant as every participant sees it (never any secret). */
export const RoomParticipant = z.object({
  client_id: z.string(),
  /** Display name; null when the participant gave none. */
  name: z.string().nullable(),
  role: ParticipantRole,
  language: z.string(),
});
export type RoomParticipant = z.infer<typeof RoomParticipant>;

// ---- rooms: host controls (POST /api/v1/session/{conversation_id}/control) ----

/**
 * One host action: lock or unlock the room to new participants, end it for everyone, or act on one
 * participant: remove it, stop its speaking (it stays as a listener), or give it the floor (speaker).
 */
export const HostControl = z.discriminatedUnion("action", [
  z.strictObject({ action: z.enum(["lock", "unlock", "end"]) }),
  z.strictObject({
    action: z.enum(["remove", "stop_speaker", "grant_floor"]),
    client_id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  }),
]);
export type HostControl = z.infer<typeof HostControl>;

/** The room after a host action. */
export const HostControlResult = z.object({
  locked: z.boolean(),
  ended: z.boolean(),
  participants: z.array(RoomParticipant),
});
export type HostControlResult = z.infer<typeof HostControlResult>;

// ---- rooms: client → server ----

/** Push-to-talk released: finish my utterance now (the socket stays open). */
export const RoomEnd = z.object({ type: z.literal("end") });
/** Spoken translations on or off for this participant (the `speak` join parameter, switched live). */
export const RoomSpeak = z.strictObject({ type: z.literal("speak"), enabled: z.boolean() });
export const RoomClientMessage = z.discriminatedUnion("type", [RoomEnd, RoomSpeak]);
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
  role: ParticipantRole,
  name: z.string().nullable(),
  /** Everyone in the room now, this participant included. */
  participants: z.array(RoomParticipant),
  /** The host has locked the room to new participants. */
  locked: z.boolean(),
  /** Spoken translations are on for this participant (`translation_audio` after each final it reads). */
  speak: z.boolean(),
  sample_rate: z.literal(LIVE_SAMPLE_RATE),
  format: z.literal(LIVE_FORMAT),
});
export const UserJoined = z.object({
  type: z.literal("user_joined"),
  client_count: z.number().int(),
  client_id: z.string(),
  language: z.string(),
  name: z.string().nullable(),
  role: ParticipantRole,
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
  /** The speaker's display name (finals of a speaker that gave one). */
  speaker_name: z.string().optional(),
  history: z.boolean().optional(),
});
export type RoomTranscript = z.infer<typeof RoomTranscript>;
/**
 * A final spoken in this participant's language, sent right after the `transcript` final it speaks,
 * to participants with speak on only (never to the speaker). Made once per language per final; `seq`
 * grows with the room's finals, and a participant receives its audio in `seq` order.
 */
export const TranslationAudio = z.object({
  type: z.literal("translation_audio"),
  seq: z.number().int().nonnegative(),
  /** client_id of the speaker. */
  speaker: z.string(),
  speaker_name: z.string().optional(),
  language: z.string(),
  /** The text spoken: the final in `language` (its original when that is the spoken language). */
  text: z.string(),
  content_type: SpeechContentType,
  /** Seconds of audio. */
  duration: z.number(),
  /** The audio, base64. */
  audio: z.string(),
});
export type TranslationAudio = z.infer<typeof TranslationAudio>;
/** Everyone in the room, sent to all whenever a host action changes it. */
export const ParticipantList = z.object({
  type: z.literal("participants"),
  participants: z.array(RoomParticipant),
});
/**
 * A host action, told to every participant (the one it concerns included, before its socket closes
 * on `removed` or `ended`). `participant`: the client_id acted on (null for room-wide actions);
 * `by`: always "host" (the host token or the creating key; which is not told).
 */
export const SystemMessage = z.object({
  type: z.literal("system"),
  event: z.enum(["locked", "unlocked", "removed", "speaker_stopped", "floor_granted", "ended"]),
  participant: z.string().nullable(),
  by: z.literal("host"),
});
export type SystemMessage = z.infer<typeof SystemMessage>;
/** Something went wrong for this participant (the room goes on). */
export const RoomError = ErrorMessage.extend({
  /**
   * bad_frame: odd-length audio; bad_message: a text frame that is not a control message;
   * no_engine: no engine free for this speaker (the speech is not transcribed); engine_error: the
   * engine reported a problem (e.g. it fell behind); engine_lost: the engine went away mid-speech;
   * key_limit: the room creator's API key holds LIVE_MAX_STREAMS_PER_KEY streams already (room speakers
   * count against it); speaker_limit: ROOM_MAX_SPEAKERS others are speaking; max_duration: the
   * speaker's stream reached LIVE_MAX_SESSION_SEC and was ended (speaking on asks for a new one);
   * listener: this participant joined (or was set) as a listener, its audio is not transcribed. After
   * a refusal the speech is not transcribed; speaking again once a stream ends works.
   * tts_unavailable: the speaker's engine has no TTS (or no voice for this language): told once per
   * stream, its finals are not spoken; tts_failed: one final could not be spoken (synthesis failed,
   * timed out, or was dropped from a full queue). The text keeps flowing either way.
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
    "listener",
    "tts_unavailable",
    "tts_failed",
  ]),
});
export type RoomError = z.infer<typeof RoomError>;
export const RoomServerMessage = z.discriminatedUnion("type", [
  RoomWelcome,
  UserJoined,
  UserLeft,
  PartnerLanguage,
  RoomTranscript,
  ParticipantList,
  SystemMessage,
  RoomError,
  TranslationAudio,
]);
export type RoomServerMessage = z.infer<typeof RoomServerMessage>;

/** Close codes of the room socket (4xxx: application codes, RFC 6455 §7.4.2). */
export const RoomClose = {
  /** The participant closed, or left normally. */
  normal: 1000,
  /** A binary frame over LIVE_MAX_FRAME_BYTES. */
  tooBig: 1009,
  /**
   * `language` missing or not one the API knows, a malformed `client_id` or `resume` token, an unknown
   * `role`, or a `name` too long or with control characters.
   */
  badRequest: 4400,
  /** No such conversation: never created, or expired. */
  notFound: 4404,
  /** The room expired while connected (ROOM_TTL_SEC without activity). */
  expired: 4408,
  /** The participant reconnected with its resume token on another connection (the newer one stays). */
  replaced: 4409,
  /** The room reached ROOM_MAX_AGE_SEC since it was created, however busy it was. */
  maxAge: 4410,
  /** The host removed this participant; its resume token is refused while the room lives. */
  removed: 4403,
  /** The host locked the room: no new participants (a resume token still takes its place back). */
  locked: 4423,
  /** The host ended the room for everyone. */
  endedByHost: 4460,
  /** The room already has ROOM_MAX_PARTICIPANTS participants. */
  full: 4429,
} as const;
