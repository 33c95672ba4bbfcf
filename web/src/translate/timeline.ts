import type { RoomTranscript, SingleTranscript } from "../api/types.ts";

/**
 * What a translation page shows, oldest first: utterances (one line per `utterance_id`, its interims
 * replaced in place, then its final) and, in a room, notices (someone joined or left, a problem).
 * Pure functions over plain data, so the list can be kept in sessionStorage and survive a reload.
 */

export interface Utterance {
  kind: "utterance";
  /** The server's utterance_id: interims of one utterance and its final share it. */
  id: string;
  final: boolean;
  /** Text in the spoken language. */
  original: string;
  /** Text in `translationLanguage`; "" while an interim came untranslated. */
  translation: string;
  /** Code of the spoken language. */
  language: string;
  translationLanguage: string;
  /** The translation backend failed: `translation` holds the original. */
  translationError: boolean;
  /** In a room: the speaker's client_id; null in single-device mode. */
  speaker: string | null;
  /** In a room: this participant spoke it (single-device: always). */
  mine: boolean;
  /** In a room: the speaker's display name, when it gave one. */
  speakerName?: string;
}

export type NoticeEvent = "you_joined" | "joined" | "left" | "problem" | "system";

export interface Notice {
  kind: "notice";
  id: string;
  event: NoticeEvent;
  /** The language of who joined. */
  language?: string;
  /** People in the room after the change. */
  count?: number;
  /** A problem's code (a room `error`'s) and text, as the server worded it. */
  code?: string;
  text?: string;
  /** A room's host action (`system` message): what the host did, to whom (display name), to you. */
  action?: "locked" | "unlocked" | "removed" | "speaker_stopped" | "floor_granted" | "ended";
  name?: string | null;
  self?: boolean;
}

export type TimelineItem = Utterance | Notice;

/** Longest list kept: older entries go first. */
export const TIMELINE_MAX = 200;

/** A single-device `transcript` message as a line. */
export function fromSingle(message: SingleTranscript): Utterance {
  return {
    kind: "utterance",
    id: message.utterance_id,
    final: message.is_final,
    original: message.original,
    translation: message.translation,
    language: message.language,
    translationLanguage: message.translation_language,
    translationError: message.translation_error === true,
    speaker: null,
    mine: true,
  };
}

/** A room `transcript` message as a bubble. */
export function fromRoom(message: RoomTranscript): Utterance {
  return {
    ...fromSingle({ ...message, is_final: !message.is_interim }),
    speaker: message.speaker,
    mine: message.is_mine,
    ...(message.speaker_name !== undefined && { speakerName: message.speaker_name }),
  };
}

/**
 * Places a transcript: an utterance already shown is replaced where it is (a late interim never
 * replaces its final), a new one goes at the end; a final with no words removes its line.
 *
 * @example
 * let items = placeUtterance([], interim); // one grey line
 * items = placeUtterance(items, final);    // the same line, now final
 */
export function placeUtterance(items: readonly TimelineItem[], next: Utterance): TimelineItem[] {
  const at = items.findIndex((item) => item.kind === "utterance" && item.id === next.id);
  const silent = !next.original.trim();
  if (at < 0) return silent ? [...items] : [...items, next].slice(-TIMELINE_MAX);
  const current = items[at] as Utterance;
  if (current.final && !next.final) return [...items];
  const copy = [...items];
  if (silent && next.final) copy.splice(at, 1);
  else copy[at] = next;
  return copy;
}

/** Adds a notice at the end. */
export function addNotice(
  items: readonly TimelineItem[],
  notice: Omit<Notice, "kind" | "id">,
): TimelineItem[] {
  const id = `notice-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  return [...items, { kind: "notice" as const, id, ...notice }].slice(-TIMELINE_MAX);
}

/** Drops the interims (their utterance will not finish after a reload or a lost connection). */
export function finalsOnly(items: readonly TimelineItem[]): TimelineItem[] {
  return items.filter((item) => item.kind === "notice" || item.final);
}

/** The list kept under `key` in sessionStorage; [] when none or unreadable. */
export function loadTimeline(key: string): TimelineItem[] {
  try {
    const parsed = JSON.parse(sessionStorage.getItem(key) ?? "[]") as unknown;
    return Array.isArray(parsed)
      ? finalsOnly((parsed as TimelineItem[]).filter((item) => typeof item?.id === "string"))
      : [];
  } catch {
    return [];
  }
}

export function saveTimeline(key: string, items: readonly TimelineItem[]): void {
  try {
    sessionStorage.setItem(key, JSON.stringify(finalsOnly(items)));
  } catch {
    // storage full or refused: the page goes on, a reload just starts empty
  }
}
