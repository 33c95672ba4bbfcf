import type { NoteSnapshot } from "../../../protocol/content.ts";

/**
 * The language an overview will be spoken in, when the Worker can tell: the one asked for, else the
 * note's when it is en or vi; null when the note's is unknown or another (the node then tells it from
 * the text, and checks the voices itself).
 */
export function overviewLanguage(asked: "en" | "vi" | null, note: NoteSnapshot): "en" | "vi" | null {
  if (asked) return asked;
  const base = note.language?.toLowerCase().split(/[-_]/)[0];
  return base === "en" || base === "vi" ? base : null;
}
