/**
 * Mind-map labels: one short line each, so a box stays readable and the picture stays narrow.
 */
import { foldForCompare } from "../text.ts";

/** Characters (code points) in a label at most, the ellipsis included. */
export const MINDMAP_LABEL_MAX_CHARS = 40;

/**
 * `text` as one label: NFC (so a diacritic is one code point whatever the note's encoding), one line,
 * no closing punctuation (an ellipsis stays: shortening a label again changes nothing), and at most MINDMAP_LABEL_MAX_CHARS, cut at a word with "…".
 *
 * @example
 * shortLabel("The Mekong is one of the longest rivers in Asia."); // "The Mekong is one of the longest rivers…"
 */
export function shortLabel(text: string): string {
  const line = text
    .normalize("NFC")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[\s.,;:!?]+$/u, "");
  if ([...line].length <= MINDMAP_LABEL_MAX_CHARS) return line;
  const room = MINDMAP_LABEL_MAX_CHARS - 1;
  let kept = "";
  for (const word of line.split(" ")) {
    const next = kept ? `${kept} ${word}` : word;
    if ([...next].length > room) break;
    kept = next;
  }
  // One word longer than a whole label: cut inside it rather than show nothing.
  if (!kept) kept = [...line].slice(0, room).join("");
  return `${kept.replace(/[\s,;:–—-]+$/u, "")}…`;
}

/** Whether two labels say the same thing (case and diacritics aside). */
export const sameLabel = (a: string, b: string) => foldForCompare(a) === foldForCompare(b);
