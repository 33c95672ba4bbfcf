import type { TranscriptLine } from "../../durable-objects/rooms/room-transcript.ts";
import { LABELLED, toSrt, toVtt } from "../../protocol/subtitles.ts";

/**
 * A room transcript as the host downloads it: each final in the room's original words, in one
 * language, or both (`bilingual`), as JSON, plain text, SubRip or WebVTT. A final not translated into
 * the asked language (nobody in the room read that language when it was said) keeps its original
 * words, marked `translated: false` in JSON. Pure functions.
 */

export const TRANSCRIPT_FORMATS = ["json", "txt", "srt", "vtt"] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

export interface TranscriptView {
  /** null: every final in the language it was spoken. */
  language: string | null;
  /** Each cue carries the original and, under it, the asked language. */
  bilingual: boolean;
}

interface ViewLine {
  speaker: string;
  start: number;
  end: number;
  language: string;
  original: string;
  text: string;
  translated: boolean;
}

function view(lines: readonly TranscriptLine[], { language }: TranscriptView): ViewLine[] {
  return lines.map((line) => {
    const inLanguage =
      language === null || language === line.language ? line.original : line.translations[language];
    return {
      speaker: line.speaker,
      start: line.start,
      end: line.end,
      language: line.language,
      original: line.original,
      text: inLanguage ?? line.original,
      translated: inLanguage !== undefined,
    };
  });
}

/** What a cue says: the chosen text, or both when bilingual and they differ. */
function cueText(line: ViewLine, options: TranscriptView): string {
  return options.bilingual && line.text !== line.original ? `${line.original}\n${line.text}` : line.text;
}

/** The body and content type of a transcript download. */
export function renderRoomTranscript(
  conversationId: string,
  lines: readonly TranscriptLine[],
  format: TranscriptFormat,
  options: TranscriptView,
): { body: string; contentType: string } {
  const viewed = view(lines, options);
  const cues = viewed.map((line) => ({
    start: line.start,
    end: line.end,
    text: cueText(line, options),
    speaker: line.speaker,
  }));
  switch (format) {
    case "json":
      return {
        body: JSON.stringify({ conversation_id: conversationId, language: options.language, lines: viewed }),
        contentType: "application/json",
      };
    case "txt":
      return {
        body: viewed
          .map((line) => `${line.speaker}: ${cueText(line, options).replace("\n", "\n  ")}\n`)
          .join(""),
        contentType: "text/plain; charset=utf-8",
      };
    case "srt":
      return { body: toSrt(cues, LABELLED), contentType: "application/x-subrip; charset=utf-8" };
    case "vtt":
      return { body: toVtt(cues, LABELLED), contentType: "text/vtt; charset=utf-8" };
  }
}

/** The transcript as the text of a note: the chosen language, one line per final, with its speaker. */
export function transcriptNoteText(lines: readonly TranscriptLine[], language: string | null): string {
  return view(lines, { language, bilingual: false })
    .map((line) => `${line.speaker}: ${line.text}`)
    .join("\n");
}
