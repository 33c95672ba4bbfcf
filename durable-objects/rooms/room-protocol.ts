/**
 * The TranslationRoom's protocol decisions, as plain functions: who a participant's partner is, which
 * languages a speaker's finals are translated into, what each reader receives for an utterance, and
 * what a client's frame means. No I/O here; the room object carries the results out.
 */
import type { NodeFinal, NodeInterim, StreamConfig } from "../../protocol/live.ts";
import { parseLiveMessage } from "../../protocol/live.ts";
import {
  type ParticipantRole,
  type RoomClientMessage,
  RoomClientMessage as RoomClientSchema,
  type RoomParticipant,
  type RoomTranscript,
} from "../../protocol/rooms.ts";
import { checkControlLength, readAudioFrame } from "../live/client-input.ts";

/** A participant, as the room stores it (attachments are lost when a socket closes; this is not). */
export interface Participant {
  client_id: string;
  language: string;
  joined_at: number;
  /** When its socket dropped; it keeps its place until the reconnect grace runs out. Null: connected. */
  left_at: number | null;
  /** SHA-256 (hex) of the participant's current resume token (room-identity.ts). */
  resume_hash: string;
  /** Display name; null (or absent, stored before names) when none was given. */
  name?: string | null;
  /** Absent in participants stored before roles: a speaker. */
  role?: ParticipantRole;
  /** Spoken translations on (the `speak` join parameter or message); absent: off. */
  speak?: boolean;
}

/** Whether a participant's audio is transcribed. */
export const speaks = (p: Pick<Participant, "role">): boolean => p.role !== "listener";

/** A participant as the others see it (no resume hash, no times). */
export function publicParticipant(p: Participant): RoomParticipant {
  return { client_id: p.client_id, name: p.name ?? null, role: p.role ?? "speaker", language: p.language };
}

/** Everyone in the room, in join order, as the others see them. */
export const participantList = (participants: readonly Participant[]): RoomParticipant[] =>
  [...participants].sort(byJoin).map(publicParticipant);

/** The session as created over REST. */
export interface RoomSession {
  conversation_id: string;
  user_a_lang: string;
  user_a_translate: string;
  /** The API key that created the room: its speakers' streams count against that key's limit. */
  creator_key_id: string;
  created_at: number;
  /** SHA-256 (hex) of the host token (absent in sessions created before host tokens). */
  host_token_hash?: string;
  /** The host locked the room to new participants. */
  locked?: boolean;
  /** Resume-token hashes of removed participants: refused while the room lives. */
  removed?: string[];
}

/** One final in the room's recent history, with every translation made of it so far. */
export interface HistoryEntry {
  utterance_id: string;
  speaker: string;
  /** The speaker's display name, when it gave one. */
  speaker_name?: string;
  language: string;
  original: string;
  translations: Record<string, string>;
  start: number;
  end: number;
  at: number;
}

/** The room keeps this many recent finals for late joiners. */
export const HISTORY_LENGTH = 20;

const byJoin = (a: Participant, b: Participant) => a.joined_at - b.joined_at;

/**
 * The language `clientId`'s words are translated into for the others: the earliest-joined other
 * participant's; alone, the session's other language (user A's target, or A's own for anyone else).
 *
 * @example
 * partnerLanguage([a_en, b_es], "a", session); // { lang: "es", languages: ["es"] }
 */
export function partnerLanguage(
  participants: readonly Participant[],
  clientId: string,
  session: RoomSession,
): { lang: string; languages: string[] } {
  const others = participants.filter((p) => p.client_id !== clientId).sort(byJoin);
  const self = participants.find((p) => p.client_id === clientId);
  const alone = self?.language === session.user_a_lang ? session.user_a_translate : session.user_a_lang;
  return { lang: others[0]?.language ?? alone, languages: [...new Set(others.map((p) => p.language))] };
}

/** The languages a speaker's finals are translated into: every other participant's, once each. */
export function listenerLanguages(participants: readonly Participant[], speakerId: string): string[] {
  const speaker = participants.find((p) => p.client_id === speakerId);
  const languages = participants.filter((p) => p.client_id !== speakerId).map((p) => p.language);
  return [...new Set(languages)].filter((lang) => lang !== speaker?.language).sort();
}

/**
 * The engine config for `clientId`'s stream: its language, the listeners' languages for finals and
 * its partner's for interims. Alone, the speaker still reads its words in the language its partner is
 * expected to speak. Null when `clientId` is not a participant.
 *
 * @example
 * streamConfig([a_en, b_es, c_fr], "a", session);
 * // { type: "config", language: "en", targets: ["es", "fr"], interim_target: "es" }
 */
export function streamConfig(
  participants: readonly Participant[],
  clientId: string,
  session: RoomSession,
): StreamConfig | null {
  const speaker = participants.find((p) => p.client_id === clientId);
  if (!speaker) return null;
  const partner = partnerLanguage(participants, clientId, session).lang;
  const listeners = listenerLanguages(participants, clientId);
  const own = (lang: string) => lang === speaker.language;
  return {
    type: "config",
    language: speaker.language,
    targets: listeners.length > 0 ? listeners : [partner].filter((lang) => !own(lang)),
    interim_target: own(partner) ? null : partner,
  };
}

/** The text of `entry` in `target`, or the original flagged when its translation failed. */
function readIn(entry: Pick<HistoryEntry, "language" | "original" | "translations">, target: string) {
  if (target === entry.language) return { translation: entry.original, failed: false };
  const translation = entry.translations[target];
  return translation === undefined
    ? { translation: entry.original, failed: true }
    : { translation, failed: false };
}

/**
 * What `reader` receives for a final: the speaker reads it in its partner's language, everyone else
 * in their own.
 *
 * @example
 * finalFor(entry, { client_id: "b", language: "es" }, "es"); // { is_mine: false, translation: "Hola", ... }
 */
export function finalFor(
  entry: HistoryEntry,
  reader: Pick<Participant, "client_id" | "language">,
  speakerPartner: string,
  history = false,
): RoomTranscript {
  const mine = reader.client_id === entry.speaker;
  const target = mine ? speakerPartner : reader.language;
  const { translation, failed } = readIn(entry, target);
  return {
    type: "transcript",
    is_mine: mine,
    is_interim: false,
    original: entry.original,
    translation,
    translation_language: target,
    ...(failed && { translation_error: true }),
    language: entry.language,
    utterance_id: entry.utterance_id,
    speaker: entry.speaker,
    ...(entry.speaker_name && { speaker_name: entry.speaker_name }),
    start: entry.start,
    end: entry.end,
    ...(history && { history: true }),
  };
}

/** The speaker's interim: translated into its partner's language when the engine had the time, else "". */
export function interimFor(
  message: NodeInterim & { translations: Record<string, string> },
  speaker: Pick<Participant, "client_id" | "language">,
  speakerPartner: string,
): RoomTranscript {
  const language = message.language ?? speaker.language;
  const same = language === speakerPartner;
  return {
    type: "transcript",
    is_mine: true,
    is_interim: true,
    original: message.text,
    translation: same ? message.text : (message.translations[speakerPartner] ?? ""),
    translation_language: speakerPartner,
    language,
    utterance_id: message.utterance_id,
    speaker: speaker.client_id,
    start: message.start,
    end: message.end,
  };
}

/** A final from the engine as a history entry (failed translations are simply absent). */
export function historyEntry(
  message: NodeFinal & { translations: Record<string, string> },
  speaker: Pick<Participant, "client_id" | "name">,
  now: number,
): HistoryEntry {
  return {
    utterance_id: message.utterance_id,
    speaker: speaker.client_id,
    ...(speaker.name && { speaker_name: speaker.name }),
    language: message.language,
    original: message.text,
    translations: { ...message.translations },
    start: message.start,
    end: message.end,
    at: now,
  };
}

/** What a participant's frame means. */
export type RoomFrame =
  | { kind: "audio"; data: ArrayBuffer }
  | { kind: "control"; message: RoomClientMessage }
  | { kind: "error"; message: string }
  | { kind: "close"; code: number; reason: string };

/**
 * Classifies one frame of a participant: PCM16 audio, the `end` control message, or a mistake.
 *
 * @example readRoomFrame("hello"); // { kind: "error", message: "... audio goes in binary frames ..." }
 */
export function readRoomFrame(frame: string | ArrayBuffer): RoomFrame {
  if (typeof frame !== "string") return readAudioFrame(frame);
  const tooLong = checkControlLength(frame);
  if (tooLong) return tooLong;
  const parsed = parseLiveMessage(RoomClientSchema, frame);
  if (parsed.ok) return { kind: "control", message: parsed.value };
  return {
    kind: "error",
    message: `${parsed.error}: audio goes in binary frames (PCM16 LE, 16 kHz, mono); the text messages are {"type":"end"} and {"type":"speak","enabled":true|false}`,
  };
}

/** Below this level (dBFS) a frame is silence: it does not open a stream. */
export const VOICE_DB = -50;

/**
 * Level of a PCM16 frame in dBFS (RMS). The room opens an engine stream only for frames above
 * {@link VOICE_DB}, so an open microphone in a quiet room costs no engine.
 *
 * @example frameLevelDb(new Int16Array([16384, -16384]).buffer); // ≈ -6
 */
export function frameLevelDb(pcm: ArrayBuffer): number {
  const samples = new Int16Array(pcm, 0, pcm.byteLength >> 1);
  if (samples.length === 0) return -120;
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.max(-120, 10 * Math.log10(sum / samples.length / 32768 ** 2));
}
