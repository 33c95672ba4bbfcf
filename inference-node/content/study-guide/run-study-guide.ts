/** A study-guide task: the note (translated when asked) → the guide → Markdown and PDF. */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { StudyGuideParams } from "../../../protocol/content.ts";
import type { ProgressTracker } from "../progress.ts";
import type { ContentDeps, ContentOutput } from "../task-types.ts";
import { translatedNote } from "../translation-stage.ts";
import { buildStudyGuide } from "./guide.ts";
import { studyGuideMarkdown } from "./markdown.ts";
import { writeStudyGuidePdf } from "./pdf.ts";

/** The files a study guide makes (the plan sizes its last stage by them). */
export const STUDY_GUIDE_FILE_COUNT = 2;

/**
 * @example
 * const output = await runStudyGuide(params, deps, signal, workDir, tracker);
 * output.files.map((f) => f.role); // ["markdown", "pdf"]
 */
export async function runStudyGuide(
  params: StudyGuideParams,
  deps: ContentDeps,
  signal: AbortSignal,
  workDir: string,
  tracker: ProgressTracker,
): Promise<ContentOutput> {
  const note = await translatedNote(params.note, params.language, deps, signal, tracker);

  tracker.start(deps.llm ? "script_llm" : "script_extractive");
  const guide = await buildStudyGuide(note, { llm: deps.llm }, signal);
  tracker.finish();

  signal.throwIfAborted();
  tracker.start("documents");
  const markdownPath = join(workDir, "study-guide.md");
  await writeFile(markdownPath, studyGuideMarkdown(guide));
  const pdfPath = join(workDir, "study-guide.pdf");
  await writeStudyGuidePdf(guide, pdfPath);
  tracker.finish();

  return {
    data: {
      note_id: params.note.note_id,
      title: guide.title,
      language: guide.language,
      text_source: guide.summary_source,
      term_count: guide.key_terms.length,
      question_count: guide.questions.length,
      has_timeline: guide.timeline.length > 0,
    },
    files: [
      { role: "markdown", path: markdownPath, contentType: "text/markdown" },
      { role: "pdf", path: pdfPath, contentType: "application/pdf" },
    ],
  };
}
