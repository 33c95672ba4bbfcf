import { splitSentences } from "./sentences.ts";
import type { Segment, TranscriptionResult } from "./transcription.ts";

/**
 * The one SubRip/WebVTT writer: the subtitle export route, the OpenAI-compatible route and the web
 * console all write cues here. Pure functions over a result's segments.
 */

/** What the writer reads of a segment. */
export type Cue = Pick<Segment, "start" | "end" | "text" | "speaker">;

export interface SubtitleOptions {
  /** The name a cue shows for its speaker label; null writes no speaker marks. */
  speakerName: ((label: string) => string) | null;
  /**
   * `standard`: files players read safely — blank cues are left out, a blank line inside a cue's text
   * is closed up (it would end the cue), speaker names are one line, and WebVTT text and voice names
   * are escaped (`&`, `<`, `>`). `openai`: OpenAI's writer byte for byte — every segment is a cue and
   * its trimmed text is written as is (the compatible route must not change its bytes).
   */
  dialect: "standard" | "openai";
}

/** Our exports: the result's own speaker labels, standard files. */
export const LABELLED: SubtitleOptions = { speakerName: (label) => label, dialect: "standard" };

/**
 * `HH:MM:SS<sep>mmm`, rounded to the millisecond (the carry reaches the hours); negative and
 * non-finite times print as zero.
 *
 * @example timecode(3725.0419, ",") // "01:02:05,042"
 */
export function timecode(sec: number, separator: "," | "."): string {
  const total = Number.isFinite(sec) && sec > 0 ? Math.round(sec * 1000) : 0;
  const pad = (value: number, width = 2) => String(value).padStart(width, "0");
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor(total / 60_000) % 60;
  const seconds = Math.floor(total / 1000) % 60;
  return `${pad(hours)}:${pad(minutes)}:${pad(seconds)}${separator}${pad(total % 1000, 3)}`;
}

/**
 * SubRip: cues numbered from 1, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, each followed by a blank line; a
 * speaker's name goes before the text (`SPEAKER_00: Hi`).
 *
 * @example toSrt([{ start: 0, end: 2.5, text: "Hi", speaker: null }], LABELLED) // "1\n00:00:00,000 --> 00:00:02,500\nHi\n\n"
 */
export function toSrt(cues: readonly Cue[], options: SubtitleOptions): string {
  return cuesOf(cues, options)
    .map((cue, i) => {
      const name = speakerOf(cue, options);
      const prefix = name === null ? "" : `${name}: `;
      return `${i + 1}\n${timecode(cue.start, ",")} --> ${timecode(cue.end, ",")}\n${prefix}${cueText(cue, options)}\n\n`;
    })
    .join("");
}

/**
 * WebVTT: the `WEBVTT` header, then `HH:MM:SS.mmm --> HH:MM:SS.mmm` cues, each followed by a blank
 * line; a speaker's name is the cue's voice tag (`<v SPEAKER_00>Hi`).
 *
 * @example toVtt([{ start: 0, end: 2.5, text: "Hi", speaker: "SPEAKER_00" }], LABELLED)
 * // "WEBVTT\n\n00:00:00.000 --> 00:00:02.500\n<v SPEAKER_00>Hi\n\n"
 */
export function toVtt(cues: readonly Cue[], options: SubtitleOptions): string {
  const vttSafe = options.dialect === "standard" ? escapeVtt : (text: string) => text;
  const written = cuesOf(cues, options).map((cue) => {
    const name = speakerOf(cue, options);
    const voice = name === null ? "" : `<v ${vttSafe(name)}>`;
    return `${timecode(cue.start, ".")} --> ${timecode(cue.end, ".")}\n${voice}${vttSafe(cueText(cue, options))}\n\n`;
  });
  return `WEBVTT\n\n${written.join("")}`;
}

/**
 * Plain text: one line per non-blank cue, `name: text` when it has a speaker; `fallback` (the whole
 * text) when there are no cues. Always ends with one newline.
 *
 * @example toPlainText([{ start: 0, end: 1, text: " Hi", speaker: "SPEAKER_00" }], "Hi", LABELLED) // "SPEAKER_00: Hi\n"
 */
export function toPlainText(cues: readonly Cue[], fallback: string, options: SubtitleOptions): string {
  const standard: SubtitleOptions = { ...options, dialect: "standard" };
  const lines = cuesOf(cues, standard).map((cue) => {
    const name = speakerOf(cue, standard);
    return name === null ? cueText(cue, standard) : `${name}: ${cueText(cue, standard)}`;
  });
  return `${lines.length > 0 ? lines.join("\n") : fallback.trim()}\n`;
}

/**
 * Cues for a result's translation, which the node writes as one text without timings: it is cut
 * into sentences, and each sentence is timed where the same share of the original transcript's
 * characters is spoken (a point inside a segment is placed pro rata across it). The timing is
 * therefore approximate, and cues carry no speaker. No translation: no cues.
 *
 * @example translatedCues(result)[0] // { start: 0, end: 2.1, text: "Hello.", speaker: null }
 */
export function translatedCues(result: TranscriptionResult): Cue[] {
  const sentences = splitSentences(result.translation ?? "");
  if (sentences.length === 0) return [];
  const spoken = result.segments.filter((segment) => segment.text.trim() !== "");
  const spans =
    spoken.length > 0
      ? spoken.map((segment) => ({
          start: segment.start,
          end: segment.end,
          chars: segment.text.trim().length,
        }))
      : [{ start: 0, end: result.duration_sec, chars: 1 }];
  const spokenChars = spans.reduce((sum, span) => sum + span.chars, 0);
  const translatedChars = sentences.reduce((sum, sentence) => sum + sentence.length, 0);

  /** The time at which `share` (0..1) of the transcript's characters has been spoken. */
  const timeAt = (share: number, side: "start" | "end"): number => {
    let remaining = share * spokenChars;
    for (const [i, span] of spans.entries()) {
      const last = i === spans.length - 1;
      // a point on a boundary starts the next span, or ends this one
      if (remaining < span.chars || (side === "end" && remaining === span.chars) || last) {
        const within = Math.min(1, remaining / span.chars);
        return span.start + within * (span.end - span.start);
      }
      remaining -= span.chars;
    }
    return 0;
  };

  let before = 0;
  return sentences.map((text) => {
    const start = timeAt(before / translatedChars, "start");
    before += text.length;
    return { start, end: timeAt(before / translatedChars, "end"), text, speaker: null };
  });
}

const cuesOf = (cues: readonly Cue[], options: SubtitleOptions): readonly Cue[] =>
  options.dialect === "openai" ? cues : cues.filter((cue) => cue.text.trim() !== "");

/** A cue's text, trimmed; the standard dialect closes up blank lines, which would end the cue early. */
const cueText = (cue: Cue, options: SubtitleOptions): string =>
  options.dialect === "openai" ? cue.text.trim() : cue.text.trim().replace(/\n\s*\n/g, "\n");

/** The name written for a cue's speaker, or null for none; a standard name is one line. */
function speakerOf(cue: Cue, options: SubtitleOptions): string | null {
  if (!cue.speaker || !options.speakerName) return null;
  const name = options.speakerName(cue.speaker);
  return options.dialect === "openai" ? name : name.replace(/\s+/g, " ").trim() || cue.speaker;
}

const escapeVtt = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
