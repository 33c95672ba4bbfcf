/**
 * Burned-in captions for a 1080x1920 short: a title card while the title is spoken, then the
 * narration a few words per line, the word being spoken highlighted (karaoke style). Each word gets
 * its own event starting at the synthesizer's time for that word, so the highlight follows the voice.
 */
import { type AssEvent, type AssStyle, assBox, assDocument, assText, inlineColor } from "./ass.ts";
import { PHRASE_MAX_CHARS, PHRASE_MAX_WORDS } from "./text.ts";
import type { WordTiming } from "./tts/synthesizer.ts";

export const SHORT_WIDTH = 1080;
export const SHORT_HEIGHT = 1920;

/** The highlighted word's colour and the line's base colour. */
const HIGHLIGHT = "FFD60A";
const BASE = "FFFFFF";
/** A line stays up through pauses shorter than this, so captions do not flicker between phrases. */
const LINGER_SEC = 0.4;
/** A pause this long ends a line even when it has room. */
const LINE_BREAK_GAP_SEC = 0.2;

export interface CaptionLine {
  words: WordTiming[];
}

/**
 * Groups words into caption lines: at most PHRASE_MAX_WORDS words and about PHRASE_MAX_CHARS
 * characters, ending at punctuation or at a pause.
 */
export function captionLines(words: readonly WordTiming[]): CaptionLine[] {
  const lines: CaptionLine[] = [];
  let current: WordTiming[] = [];
  words.forEach((word, i) => {
    const length = [...current, word].map((w) => w.text).join(" ").length;
    if (current.length >= PHRASE_MAX_WORDS || (current.length > 0 && length > PHRASE_MAX_CHARS)) {
      lines.push({ words: current });
      current = [];
    }
    current.push(word);
    const next = words[i + 1];
    if (/[,.;:!?…—–]$/.test(word.text) || (next && next.start - word.end > LINE_BREAK_GAP_SEC)) {
      lines.push({ words: current });
      current = [];
    }
  });
  if (current.length > 0) lines.push({ words: current });
  return lines;
}

/** One event per word: the line with that word highlighted, from its start to the next word's. */
export function karaokeEvents(lines: readonly CaptionLine[], style: string): AssEvent[] {
  const events: AssEvent[] = [];
  lines.forEach((line, li) => {
    const nextLineStart = lines[li + 1]?.words[0]?.start ?? Number.POSITIVE_INFINITY;
    line.words.forEach((word, wi) => {
      const next = line.words[wi + 1];
      const end = next ? next.start : Math.min(nextLineStart, word.end + LINGER_SEC);
      const text = line.words
        .map((w, k) =>
          k === wi
            ? `{\\c${inlineColor(HIGHLIGHT)}\\fscx112\\fscy112}${assText(w.text)}{\\c${inlineColor(BASE)}\\fscx100\\fscy100}`
            : assText(w.text),
        )
        .join(" ");
      events.push({ start: word.start, end: Math.max(end, word.start + 0.01), style, text });
    });
  });
  return events;
}

export interface ShortCaptionsInput {
  title: string;
  /** When the title narration ends and the captions begin. */
  titleEndSec: number;
  /** Narration words after the title, times from the start of the audio. */
  words: readonly WordTiming[];
  videoEndSec: number;
}

const STYLES: AssStyle[] = [
  { name: "Caption", size: 84, color: BASE, outline: 6, shadow: 2, alignment: 2, marginV: 520, marginH: 70 },
  { name: "Title", size: 96, color: "FFFFFF", outline: 0, shadow: 0, alignment: 5, marginH: 120 },
  {
    name: "Header",
    size: 44,
    color: "FFFFFF",
    outline: 3,
    shadow: 0,
    alignment: 8,
    marginV: 150,
    marginH: 90,
  },
  { name: "Box", size: 20, color: "000000", alignment: 7 },
];

/**
 * The ASS document of a short.
 *
 * @example
 * const ass = shortCaptions({ title: "Rivers", titleEndSec: 1.2, words, videoEndSec: 28 });
 */
export function shortCaptions(input: ShortCaptionsInput): string {
  const titleEnd = Math.max(input.titleEndSec, 1);
  const events: AssEvent[] = [
    // Title card: a dark translucent panel with the title centred on it.
    { start: 0, end: titleEnd, style: "Box", text: assBox(90, 700, 900, 520, "000000", 0x50), layer: 0 },
    {
      start: 0,
      end: titleEnd,
      style: "Title",
      text: `{\\pos(540,960)\\fad(150,150)}${assText(input.title)}`,
      layer: 1,
    },
    { start: titleEnd, end: input.videoEndSec, style: "Header", text: assText(input.title), layer: 1 },
    ...karaokeEvents(captionLines(input.words), "Caption").map((e) => ({ ...e, layer: 2 })),
  ];
  return assDocument(SHORT_WIDTH, SHORT_HEIGHT, STYLES, events);
}
