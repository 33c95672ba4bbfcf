/**
 * Whether a text opens with a title's words. A note sent without a title gets its first ten words as
 * one ("Photosynthesis is the process by which green plants use sunlight…", worker/content/notes.ts),
 * so a narration that said the title and then the note's opening said those words twice.
 */
import type { NoteSnapshot } from "../../protocol/content.ts";
import { keyTerms, lowerCaseWords } from "./keywords.ts";
import { noteLanguage, noteSections, splitWords, termOf } from "./text.ts";

/**
 * How many of `text`'s words (splitWords) repeat `title`, word for word, case and punctuation aside;
 * 0 when `text` does not open with the whole title.
 *
 * @example titleWordsOpening("The Mekong", "The Mekong, a long river, floods.") // 2
 * @example titleWordsOpening("Rivers of Asia", "Rivers of Europe are shorter.") // 0
 */
export function titleWordsOpening(title: string, text: string): number {
  const titleTerms = splitWords(title).map(termOf);
  const textTerms = splitWords(text).map(termOf);
  if (titleTerms.length === 0 || titleTerms.length > textTerms.length) return 0;
  return titleTerms.every((term, i) => term === textTerms[i]) ? titleTerms.length : 0;
}

/**
 * True when `title` is `text`'s opening cut short (ending "…"): said before `text`, it would trail off
 * and then be said again whole.
 *
 * @example isCutOpening("Photosynthesis is the process by which…", "Photosynthesis is the process by which plants eat.") // true
 */
export function isCutOpening(title: string, text: string): boolean {
  return title.endsWith("…") && titleWordsOpening(title, text) > 0;
}

/**
 * The note's title as a narrator names the note ("Today we are looking at …", "Quiz time: …"): the
 * title, unless it is the note's opening cut short, which is no phrase to say there ("looking at
 * Photosynthesis is the process by which…"): then the first term of the opening sentence
 * ("photosynthesis"); null when there is neither.
 *
 * @example spokenTitle({ ...note, title: "Photosynthesis is the process by which green plants use sunlight…" }) // "photosynthesis"
 */
export function spokenTitle(note: NoteSnapshot): string | null {
  const title = note.title.trim();
  const language = noteLanguage(note.language, note.content);
  const sentences = noteSections(note.content, language).flatMap((section) => section.sentences);
  const opening = sentences[0] ?? "";
  if (title && !isCutOpening(title, opening)) return title;
  const term = keyTerms(opening, language, lowerCaseWords(sentences)).find((t) => t.kind !== "number");
  return term?.text ?? null;
}
