/**
 * The "translating" stage of a studio artifact asked in another language than its note's: the note in
 * that language (noteInLanguage), timed as the `translate` stage when a translation runs.
 */
import type { NoteSnapshot } from "../../protocol/content.ts";
import { needsNoteTranslation, noteInLanguage } from "./note-in-language.ts";
import type { ProgressTracker, StageKey } from "./progress.ts";
import type { ContentLanguage } from "./script.ts";
import type { ContentDeps } from "./task-types.ts";

/** The planned stage, when `language` asks for a translation: sized by the note's characters. */
export function translationStage(note: NoteSnapshot, language: ContentLanguage | null) {
  return needsNoteTranslation(note, language)
    ? [{ step: "translating", key: "translate" as StageKey, units: note.content.length } as const]
    : [];
}

/**
 * The note in `language` (null: its own), the translation timed on `tracker`.
 *
 * @example const note = await noteForArtifact(params.note, params.language, deps, signal, tracker);
 */
export async function noteForArtifact(
  note: NoteSnapshot,
  language: ContentLanguage | null,
  deps: ContentDeps,
  signal: AbortSignal,
  tracker: ProgressTracker,
): Promise<NoteSnapshot & { language: ContentLanguage }> {
  if (!needsNoteTranslation(note, language)) return noteInLanguage(note, null, deps.translate, signal);
  tracker.start("translate");
  const translated = await noteInLanguage(note, language, deps.translate, signal);
  tracker.finish();
  return translated;
}
