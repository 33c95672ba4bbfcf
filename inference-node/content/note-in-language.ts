/**
 * A studio artifact's note in the language it is asked in: the note itself when `language` is null or
 * already the note's, else the note translated line by line (translateNote), so every kind that takes
 * `language` makes its artifact from the same words a reader of that language gets.
 */
import type { NoteSnapshot } from "../../protocol/content.ts";
import { translateNote } from "./note-translation/translate-note.ts";
import type { ContentLanguage, TranslateFn } from "./script.ts";
import { noteLanguage } from "./text.ts";

/** Whether `language` asks for another language than the note's own (so a translation stage runs). */
export function needsNoteTranslation(note: NoteSnapshot, language: ContentLanguage | null): boolean {
  return language !== null && language !== noteLanguage(note.language, note.content);
}

/**
 * The note in `language` (null: its own), with its language resolved.
 *
 * @example
 * const note = await noteInLanguage(params.note, params.language, deps.translate, signal);
 * note.language; // "vi"
 */
export async function noteInLanguage(
  note: NoteSnapshot,
  language: ContentLanguage | null,
  translate: TranslateFn | undefined,
  signal: AbortSignal,
): Promise<NoteSnapshot & { language: ContentLanguage }> {
  if (language === null || !needsNoteTranslation(note, language)) {
    return { ...note, language: noteLanguage(note.language, note.content) };
  }
  const translated = await translateNote(note, language, translate, signal);
  return { ...note, title: translated.title || note.title, content: translated.content, language };
}
