/**
 * The "translating" stage of a studio artifact asked in another language than its note's: planned
 * when the languages differ, and run through noteInLanguage, so every such kind reports and measures
 * its translation the same way.
 */
import type { NoteSnapshot } from "../../protocol/content.ts";
import type { PlannedStage } from "./content-kinds.ts";
import { needsNoteTranslation, noteInLanguage } from "./note-in-language.ts";
import type { ProgressTracker } from "./progress.ts";
import type { ContentLanguage } from "./script.ts";
import type { ContentDeps } from "./task-types.ts";

/** The translation stage when `language` differs from the note's (sized by its characters), else none. */
export function translationStage(note: NoteSnapshot, language: ContentLanguage | null): PlannedStage[] {
  return needsNoteTranslation(note, language)
    ? [{ step: "translating", key: "translate", units: note.content.length }]
    : [];
}

/**
 * The note in `language` (null: its own); a translation is reported as the "translate" stage.
 * Without a translator it fails `translation_unavailable`.
 *
 * @example
 * const note = await translatedNote(params.note, params.language, deps, signal, tracker);
 */
export async function translatedNote(
  note: NoteSnapshot,
  language: ContentLanguage | null,
  deps: Pick<ContentDeps, "translate">,
  signal: AbortSignal,
  tracker: ProgressTracker,
): Promise<NoteSnapshot & { language: ContentLanguage }> {
  const translating = needsNoteTranslation(note, language);
  if (translating) tracker.start("translate");
  const result = await noteInLanguage(note, language, deps.translate, signal);
  if (translating) tracker.finish();
  return result;
}
