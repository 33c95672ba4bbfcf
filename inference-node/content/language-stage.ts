/**
 * The "translating" stage of a studio artifact that takes `language`: its place in the plan, and the
 * note in that language (noteInLanguage) with the stage reported while the translation runs.
 */
import type { NoteSnapshot } from "../../protocol/content.ts";
import type { PlannedStage } from "./content-kinds.ts";
import { needsNoteTranslation, noteInLanguage } from "./note-in-language.ts";
import type { ProgressTracker } from "./progress.ts";
import type { ContentLanguage } from "./script.ts";
import type { ContentDeps } from "./task-types.ts";

/** The translation stage, sized by the note's characters, when `language` is not the note's own. */
export function translationPlan(note: NoteSnapshot, language: ContentLanguage | null): PlannedStage[] {
  return needsNoteTranslation(note, language)
    ? [{ step: "translating", key: "translate", units: note.content.length }]
    : [];
}

/**
 * @example
 * const note = await noteInLanguageStage(params.note, params.language, deps, signal, tracker);
 */
export async function noteInLanguageStage(
  note: NoteSnapshot,
  language: ContentLanguage | null,
  deps: ContentDeps,
  signal: AbortSignal,
  tracker: ProgressTracker,
): Promise<NoteSnapshot & { language: ContentLanguage }> {
  const translating = needsNoteTranslation(note, language);
  if (translating) tracker.start("translate");
  const translated = await noteInLanguage(note, language, deps.translate, signal);
  if (translating) tracker.finish();
  return translated;
}
