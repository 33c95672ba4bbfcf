/**
 * A small writer for ASS subtitle documents (rendered by libass through ffmpeg's `ass` filter):
 * styles, timed events, colours and vector boxes. Every on-screen text of a video is an event here,
 * so one filter draws the whole overlay in a single pass.
 */
import { FONT_FAMILY } from "./fonts.ts";

export interface AssStyle {
  name: string;
  size: number;
  /** RRGGBB */
  color: string;
  outlineColor?: string;
  outline?: number;
  shadow?: number;
  /** Numpad position: 2 bottom centre, 5 middle centre, 8 top centre. */
  alignment?: number;
  marginV?: number;
  marginH?: number;
}

export interface AssEvent {
  start: number;
  end: number;
  style: string;
  text: string;
  layer?: number;
}

/**
 * ASS colour (&HAABBGGRR) from RRGGBB; `alpha` 0 opaque .. 255 invisible.
 *
 * @example
 * assColor("FF8000"); // "&H000080FF"
 */
export function assColor(rgb: string, alpha = 0): string {
  const r = rgb.slice(0, 2);
  const g = rgb.slice(2, 4);
  const b = rgb.slice(4, 6);
  return `&H${alpha.toString(16).padStart(2, "0").toUpperCase()}${b}${g}${r}`.toUpperCase();
}

/** Colour override for inline use: `{\c&HBBGGRR&}`. */
export const inlineColor = (rgb: string) =>
  `&H${rgb.slice(4, 6)}${rgb.slice(2, 4)}${rgb.slice(0, 2)}&`.toUpperCase();

/**
 * H:MM:SS.cc as ASS wants it (centiseconds, rounded).
 *
 * @example
 * assTime(61.239); // "0:01:01.24"
 */
export function assTime(seconds: number): string {
  const cs = Math.max(0, Math.round(seconds * 100));
  const h = Math.floor(cs / 360_000);
  const m = Math.floor((cs % 360_000) / 6000);
  const s = Math.floor((cs % 6000) / 100);
  const c = cs % 100;
  return `${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}.${String(c).padStart(2, "0")}`;
}

/** Parses assTime's format back to seconds (tests read captions back with it). */
export function parseAssTime(text: string): number {
  const match = /^(\d+):(\d{2}):(\d{2})\.(\d{2})$/.exec(text.trim());
  if (!match) throw new Error(`bad ASS time "${text}"`);
  return Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3]) + Number(match[4]) / 100;
}

/** Text safe inside an event: braces would open override blocks, backslashes escapes. */
export function assText(text: string): string {
  return text.replace(/[{}]/g, "").replace(/\\/g, "/").replace(/\s+/g, " ").trim();
}

/** A filled rectangle drawn with ASS vector commands, top-left at (x, y). */
export function assBox(
  x: number,
  y: number,
  w: number,
  h: number,
  fill: string,
  alpha = 0,
  outline?: { color: string; width: number },
): string {
  const border = outline ? `\\bord${outline.width}\\3c${inlineColor(outline.color)}` : "\\bord0";
  const a = `\\1a&H${alpha.toString(16).padStart(2, "0").toUpperCase()}&`;
  return `{\\an7\\pos(${Math.round(x)},${Math.round(y)})\\shad0${border}\\1c${inlineColor(fill)}${a}\\p1}m 0 0 l ${Math.round(w)} 0 ${Math.round(w)} ${Math.round(h)} 0 ${Math.round(h)}{\\p0}`;
}

/** The whole .ass document for a `width`x`height` video. */
export function assDocument(
  width: number,
  height: number,
  styles: readonly AssStyle[],
  events: readonly AssEvent[],
): string {
  const styleLines = styles.map((s) =>
    [
      `Style: ${s.name}`,
      FONT_FAMILY,
      s.size,
      assColor(s.color),
      assColor(s.color),
      assColor(s.outlineColor ?? "000000"),
      assColor("000000", 128),
      -1,
      0,
      0,
      0,
      100,
      100,
      0,
      0,
      1,
      s.outline ?? 0,
      s.shadow ?? 0,
      s.alignment ?? 2,
      s.marginH ?? 60,
      s.marginH ?? 60,
      s.marginV ?? 60,
      1,
    ].join(","),
  );
  const eventLines = [...events]
    .sort((a, b) => a.start - b.start)
    .map(
      (e) => `Dialogue: ${e.layer ?? 0},${assTime(e.start)},${assTime(e.end)},${e.style},,0,0,0,,${e.text}`,
    );
  return [
    "[Script Info]",
    "ScriptType: v4.00+",
    `PlayResX: ${width}`,
    `PlayResY: ${height}`,
    "WrapStyle: 0",
    "ScaledBorderAndShadow: yes",
    "",
    "[V4+ Styles]",
    "Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding",
    ...styleLines,
    "",
    "[Events]",
    "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text",
    ...eventLines,
    "",
  ].join("\n");
}
