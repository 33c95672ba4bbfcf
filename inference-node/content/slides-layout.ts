/**
 * One layout model for both deck files: every slide as positioned rectangles and text boxes on a
 * 13.333 x 7.5 inch (16:9) page, font sizes already chosen to fit. The PPTX and the PDF are drawn
 * from the same model, so they match slide for slide and page for page.
 */
import type { DeckOutline, OutlineSlide } from "./deck.ts";
import type { SlideTheme } from "./themes.ts";

export const PAGE_WIDTH_IN = 13.333;
export const PAGE_HEIGHT_IN = 7.5;

export type LayoutElement =
  | { type: "rect"; x: number; y: number; w: number; h: number; fill: string }
  | {
      type: "text";
      x: number;
      y: number;
      w: number;
      h: number;
      text: string;
      /** Points. */
      fontSize: number;
      color: string;
      bold: boolean;
      align: "left" | "center";
      valign: "top" | "middle";
    }
  | {
      type: "bullets";
      x: number;
      y: number;
      w: number;
      h: number;
      items: string[];
      fontSize: number;
      color: string;
      bullet: string;
    };

export interface SlideLayout {
  background: string;
  elements: LayoutElement[];
  /** The slide's narration, for the speaker notes. */
  notes: string;
}

const LINE_HEIGHT = 1.25;
/** Average glyph advance as a share of the font size (Latin text with diacritics). */
const GLYPH_WIDTH = 0.52;

/**
 * The largest size from `max` down to `min` (points) at which `paragraphs` fit a w x h inch box.
 *
 * @example
 * fitFontSize(["A short line"], 10, 1, 40, 12); // 40
 */
export function fitFontSize(
  paragraphs: readonly string[],
  w: number,
  h: number,
  max: number,
  min: number,
  gap = 0.4,
): number {
  for (let size = max; size > min; size -= 1) {
    const perLine = Math.max(1, Math.floor((w * 72) / (size * GLYPH_WIDTH)));
    const lines = paragraphs.reduce((n, p) => n + Math.max(1, Math.ceil([...p].length / perLine)), 0);
    const height = (lines * size * LINE_HEIGHT + (paragraphs.length - 1) * size * gap) / 72;
    if (height <= h) return size;
  }
  return min;
}

function text(
  x: number,
  y: number,
  w: number,
  h: number,
  value: string,
  size: [number, number],
  color: string,
  bold: boolean,
  align: "left" | "center",
  valign: "top" | "middle",
): LayoutElement {
  return {
    type: "text",
    x,
    y,
    w,
    h,
    text: value,
    fontSize: fitFontSize([value], w, h, size[0], size[1]),
    color,
    bold,
    align,
    valign,
  };
}

function layoutSlide(slide: OutlineSlide, number: number, total: number, theme: SlideTheme): SlideLayout {
  if (slide.kind === "title") {
    return {
      background: theme.accent,
      elements: [
        { type: "rect", x: 0.9, y: 4.6, w: 2.2, h: 0.08, fill: theme.onAccent },
        text(0.9, 1.4, 11.5, 3.0, slide.title, [48, 24], theme.onAccent, true, "left", "middle"),
        text(0.9, 4.9, 11.5, 1.0, slide.subtitle, [24, 14], theme.onAccent, false, "left", "top"),
      ],
      notes: slide.narration,
    };
  }
  const bulletBox = { x: 1.0, y: 1.75, w: 11.4, h: 5.0 };
  const elements: LayoutElement[] = [
    { type: "rect", x: 0.6, y: 0.55, w: 0.12, h: 0.9, fill: theme.accent },
    text(0.95, 0.45, 11.6, 1.1, slide.heading, [36, 20], theme.heading, true, "left", "middle"),
    {
      type: "bullets",
      ...bulletBox,
      items: slide.bullets,
      fontSize: fitFontSize(slide.bullets, bulletBox.w - 0.5, bulletBox.h, 26, 12),
      color: theme.body,
      bullet: theme.accent,
    },
    text(11.3, 6.95, 1.6, 0.4, `${number} / ${total}`, [12, 10], theme.body, false, "left", "middle"),
  ];
  if (slide.kind === "summary")
    elements.unshift({ type: "rect", x: 0.6, y: 1.6, w: 12.1, h: 5.3, fill: `${theme.accent}` });
  return {
    background: theme.background,
    elements: slide.kind === "summary" ? summaryColors(elements, theme) : elements,
    notes: slide.narration,
  };
}

/** On the summary slide the bullets sit on the accent panel. */
function summaryColors(elements: LayoutElement[], theme: SlideTheme): LayoutElement[] {
  return elements.map((e) =>
    e.type === "bullets" ? { ...e, color: theme.onAccent, bullet: theme.onAccent } : e,
  );
}

/**
 * Lays out every slide of the outline.
 *
 * @example
 * const layouts = layoutDeck(outline, slideTheme("slide-clean"));
 */
export function layoutDeck(outline: DeckOutline, theme: SlideTheme): SlideLayout[] {
  return outline.slides.map((slide, i) => layoutSlide(slide, i + 1, outline.slides.length, theme));
}
