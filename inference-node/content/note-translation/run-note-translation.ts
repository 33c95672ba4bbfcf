/**
 * A note_translation task: the note translated (translateNote), written as the new note's Markdown
 * and as JSON. The Worker keeps the translated note as a new note of the task's owner when it stores
 * the completion, so the result's `content` is the note's text and the files are its downloads.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type NoteTranslationParams,
  TRANSLATED_NOTE_MAX_CHARS,
  TRANSLATED_TITLE_MAX_CHARS,
  translationSourceLanguage,
} from "../../../protocol/content.ts";
import { ContentError } from "../errors.ts";
import type { ProgressTracker } from "../progress.ts";
import type { ContentDeps, ContentOutput } from "../task-types.ts";
import { translateNote } from "./translate-note.ts";

/** The JSON file's format tag and version. */
const FORMAT = "voxedge.note_translation";

/**
 * Translates the note and writes `note.md` (a heading with the title, then the note) and `note.json`.
 *
 * @example
 * const output = await runNoteTranslation(params, deps, signal, workDir, tracker);
 * output.data.content; // the new note's text
 */
export async function runNoteTranslation(
  params: NoteTranslationParams,
  deps: ContentDeps,
  signal: AbortSignal,
  workDir: string,
  tracker: ProgressTracker,
): Promise<ContentOutput> {
  tracker.start("translate");
  const translated = await translateNote(params.note, params.language, deps.translate, signal);
  tracker.finish();
  if (translated.content.length > TRANSLATED_NOTE_MAX_CHARS) {
    throw new ContentError(
      "invalid_params",
      `the translation has ${translated.content.length} characters; a note holds at most ${TRANSLATED_NOTE_MAX_CHARS}`,
    );
  }
  const title = cutTitle(translated.title || params.note.title);
  const markdown = join(workDir, "note.md");
  await writeFile(markdown, `# ${title}\n\n${translated.content.trimEnd()}\n`);
  const json = join(workDir, "note.json");
  await writeFile(
    json,
    `${JSON.stringify(
      {
        format: FORMAT,
        version: 1,
        source_note_id: params.note.note_id,
        source_language: translationSourceLanguage(params.note),
        language: translated.language,
        title,
        content: translated.content,
        sentence_count: translated.sentences,
      },
      null,
      2,
    )}\n`,
  );
  return {
    data: {
      note_id: params.note.note_id,
      title,
      language: translated.language,
      content: translated.content,
      sentence_count: translated.sentences,
    },
    files: [
      { role: "markdown", path: markdown, contentType: "text/markdown" },
      { role: "json", path: json, contentType: "application/json" },
    ],
  };
}

/** A title that fits a note's: cut at a word, marked with "…". */
function cutTitle(title: string): string {
  if (title.length <= TRANSLATED_TITLE_MAX_CHARS) return title;
  const cut = title.slice(0, TRANSLATED_TITLE_MAX_CHARS - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), 1)).trimEnd()}…`;
}
