/**
 * Burned-in captions for a short (1080x1920, 1920x1080 or 1080x1080): a title card while the title is
 * spoken, then the narration a few words per line, the word being spoken highlighted (karaoke style).
 * Each word gets its own event starting at the synthesizer's time for that word, so the highlight
 * follows the voice.
 */
import type { ShortAspect } from "../../protocol/content.ts";
import type { Cue } from "../../protocol/subtitles.ts";
import { type AssEvent, type AssStyle, assBox, assDocument, assText, inlineColor } from "./ass.ts";
import { PHRASE_MAX_CHARS, PHRASE_MAX_WORDS } from "./text.ts";
import type { WordTiming } from "./tts/synthesizer.ts";

/** Where a short's parts go on one frame shape. */
export interface ShortLayout {
  width: number;
  height: number;
  /** The caption line's baseline above the bottom edge: a vertical short keeps clear of the apps' controls. */
  captionMarginV: number;
  /** The title header's distance from the top while the captions run. */
  headerMarginV: number;
  /** The title card's panel, centred. */
  card: { width: number; height: number };
}

/**
 * Each aspect's layout. Caption lines hold at most PHRASE_MAX_CHARS characters at 84 px, which fits
 * the narrowest frame (1080 px) with its margins, so only the vertical positions and the card change.
 */
export const SHORT_LAYOUTS: Readonly<Record<ShortAspect, ShortLayout>> = {
  "9:16": {
    width: 1080,
    height: 1920,
    captionMarginV: 520,
    headerMarginV: 150,
    card: { width: 900, height: 520 },
  },
  "16:9": {
    width: 1920,
    height: 1080,
    captionMarginV: 120,
    headerMarginV: 60,
    card: { width: 1400, height: 420 },
  },
  "1:1": {
    width: 1080,
    height: 1080,
    captionMarginV: 190,
    headerMarginV: 80,
    card: { width: 900, height: 420 },
  },
};

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

/** When a line's last word leaves the screen: at the next line's start, or LINGER_SEC after it is said. */
const lastWordEnd = (word: WordTiming, nextLineStart: number) =>
  Math.max(Math.min(nextLineStart, word.end + LINGER_SEC), word.start + 0.01);

/** One event per word: the line with that word highlighted, from its start to the next word's. */
export function karaokeEvents(lines: readonly CaptionLine[], style: string): AssEvent[] {
  const events: AssEvent[] = [];
  lines.forEach((line, li) => {
    const nextLineStart = lines[li + 1]?.words[0]?.start ?? Number.POSITIVE_INFINITY;
    line.words.forEach((word, wi) => {
      const next = line.words[wi + 1];
      const end = next ? next.start : lastWordEnd(word, nextLineStart);
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
  aspect: ShortAspect;
}

function styles(layout: ShortLayout): AssStyle[] {
  const cardMargin = (layout.width - layout.card.width) / 2;
  return [
    {
      name: "Caption",
      size: 84,
      color: BASE,
      outline: 6,
      shadow: 2,
      alignment: 2,
      marginV: layout.captionMarginV,
      marginH: 70,
    },
    {
      name: "Title",
      size: 96,
      color: "FFFFFF",
      outline: 0,
      shadow: 0,
      alignment: 5,
      marginH: cardMargin + 30,
    },
    {
      name: "Header",
      size: 44,
      color: "FFFFFF",
      outline: 3,
      shadow: 0,
      alignment: 8,
      marginV: layout.headerMarginV,
      marginH: 90,
    },
    { name: "Box", size: 20, color: "000000", alignment: 7 },
  ];
}

/**
 * The title card's end: when the title has been said, and at least a second in, but never after the
 * first caption begins (a title said as the body's opening runs straight into it; two cues at once
 * stack on a player's screen).
 */
const titleCardEnd = (input: ShortCaptionsInput) =>
  Math.min(Math.max(input.titleEndSec, 1), input.words[0]?.start ?? Number.POSITIVE_INFINITY);

/**
 * The short's captions as cues, for its SRT/VTT sidecar: the title while its card is up, then each
 * burned-in line from its first word to when it leaves the screen.
 *
 * @example shortCaptionCues({ title: "Rivers", titleEndSec: 1.2, words, videoEndSec: 28, aspect: "9:16" })[0]; // { start: 0, end: 1.2, text: "Rivers", speaker: null }
 */
export function shortCaptionCues(input: ShortCaptionsInput): Cue[] {
  const lines = captionLines(input.words);
  return [
    { start: 0, end: titleCardEnd(input), text: input.title, speaker: null },
    ...lines.flatMap((line, li) => {
      const first = line.words[0];
      const last = line.words.at(-1);
      if (!first || !last) return [];
      const nextLineStart = lines[li + 1]?.words[0]?.start ?? Number.POSITIVE_INFINITY;
      const end = Math.min(lastWordEnd(last, nextLineStart), input.videoEndSec);
      return [{ start: first.start, end, text: line.words.map((w) => w.text).join(" "), speaker: null }];
    }),
  ];
}

/**
 * The ASS document of a short.
 *
 * @example
 * const ass = shortCaptions({ title: "Rivers", titleEndSec: 1.2, words, videoEndSec: 28, aspect: "9:16" });
 */
export function shortCaptions(input: ShortCaptionsInput): string {
  const layout = SHORT_LAYOUTS[input.aspect];
  const { card } = layout;
  const titleEnd = titleCardEnd(input);
  const box = assBox(
    (layout.width - card.width) / 2,
    (layout.height - card.height) / 2,
    card.width,
    card.height,
    "000000",
    0x50,
  );
  const events: AssEvent[] = [
    // Title card: a dark translucent panel with the title centred on it.
    { start: 0, end: titleEnd, style: "Box", text: box, layer: 0 },
    {
      start: 0,
      end: titleEnd,
      style: "Title",
      text: `{\\pos(${layout.width / 2},${layout.height / 2})\\fad(150,150)}${assText(input.title)}`,
      layer: 1,
    },
    { start: titleEnd, end: input.videoEndSec, style: "Header", text: assText(input.title), layer: 1 },
    ...karaokeEvents(captionLines(input.words), "Caption").map((e) => ({ ...e, layer: 2 })),
  ];
  return assDocument(layout.width, layout.height, styles(layout), events);
}
