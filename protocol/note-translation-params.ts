/**
 * Note translation (POST /v2/create/translation, kind `note_translation`): a note in another
 * language, kept as a new note of the task's owner. The node translates; the Worker stores the note
 * when it keeps the completion.
 */
import { z } from "zod";
import { ContentTaskResult, NoteSnapshot } from "./content-params.ts";
import { detectLanguage } from "./language-detect.ts";

/** The languages a note is translated between. */
export const NOTE_TRANSLATION_LANGUAGES = ["en", "vi"] as const;
export type NoteTranslationLanguage = (typeof NOTE_TRANSLATION_LANGUAGES)[number];

/** POST /v2/create/translation, resolved: `language` is the target, never the note's own. */
export const NoteTranslationParams = z.object({
  note: NoteSnapshot,
  language: z.enum(NOTE_TRANSLATION_LANGUAGES),
  community: z.boolean().default(false),
});
export type NoteTranslationParams = z.infer<typeof NoteTranslationParams>;

/** The most characters a translated note may hold: what any note may (so it feeds every create route). */
export const TRANSLATED_NOTE_MAX_CHARS = NoteSnapshot.shape.content.maxLength ?? 100_000;
/** The longest note title. */
export const TRANSLATED_TITLE_MAX_CHARS = NoteSnapshot.shape.title.maxLength ?? 300;

/**
 * What the node reports: the translated note's title (`title`) and Markdown (`content`), `language`
 * the target, `note_id` the source note; the Worker turns `content` into the new note.
 */
export const NoteTranslationCompletion = ContentTaskResult.extend({
  content: z.string().min(1).max(TRANSLATED_NOTE_MAX_CHARS),
  sentence_count: z.number().int().min(0),
});
export type NoteTranslationCompletion = z.infer<typeof NoteTranslationCompletion>;

/** What the stores keep: `note_id` the new note, `source_note_id` the note it was translated from. */
export const NoteTranslationResult = ContentTaskResult.extend({
  source_note_id: z.string(),
  sentence_count: z.number().int().min(0),
});
export type NoteTranslationResult = z.infer<typeof NoteTranslationResult>;

/**
 * The language a note is translated from, as the node reads it: its own `en`/`vi` code, else `vi` when
 * its text reads as Vietnamese, else `en`.
 *
 * @example translationSourceLanguage({ language: "vi-VN", content: "…" }); // "vi"
 */
export function translationSourceLanguage(note: Pick<NoteSnapshot, "language" | "content">) {
  const base = note.language?.toLowerCase().split(/[-_]/)[0];
  if (base === "en" || base === "vi") return base;
  return detectLanguage(note.content) === "vi" ? "vi" : "en";
}
