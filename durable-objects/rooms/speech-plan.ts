/**
 * A room's spoken-translation decisions, as plain functions (no I/O): which languages a final is
 * spoken in, with what text, and who hears each.
 */
import { SPEECH_MAX_TEXT_CHARS } from "../../protocol/live-speech.ts";
import type { HistoryEntry, Participant } from "./room-protocol.ts";

/** One language a final is spoken in, and the text spoken (null: it cannot be, with why). */
export interface SpeechAsk {
  language: string;
  text: string;
  /** Set when the text is not sent to the engine (too long to speak). */
  refused?: string;
}

/** Connected participants with speak on who read `language`, the speaker excepted. */
export function hearers(participants: readonly Participant[], language: string, speaker: string): string[] {
  return participants
    .filter((p) => p.speak && p.left_at === null && p.language === language && p.client_id !== speaker)
    .map((p) => p.client_id);
}

/**
 * The languages `entry` is spoken in, once each: those of the connected participants with speak on
 * (the speaker excepted), in the text each reads. A language whose translation failed is not spoken
 * (its readers have the original, flagged); an empty text neither.
 *
 * @example
 * speechAsks(entry_en, [speaker_en, b_es_speak, c_es_speak, d_fr]); // [{ language: "es", text: "Hola" }]
 */
export function speechAsks(entry: HistoryEntry, participants: readonly Participant[]): SpeechAsk[] {
  const languages = new Set(
    participants
      .filter((p) => p.speak && p.left_at === null && p.client_id !== entry.speaker)
      .map((p) => p.language),
  );
  return [...languages].sort().flatMap((language) => {
    const text = (language === entry.language ? entry.original : entry.translations[language])?.trim();
    if (!text) return [];
    if (text.length > SPEECH_MAX_TEXT_CHARS) {
      return [{ language, text, refused: `too long to speak (over ${SPEECH_MAX_TEXT_CHARS} characters)` }];
    }
    return [{ language, text }];
  });
}
