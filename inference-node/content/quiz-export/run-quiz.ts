/** A quiz task: the note (translated when asked) → questions → JSON, Moodle XML, GIFT and a printable PDF. */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { QuizParams } from "../../../protocol/content.ts";
import type { ProgressTracker } from "../progress.ts";
import { ExtractiveQuizWriter, LlmQuizWriter, type QuizWriter } from "../quiz.ts";
import type { ContentDeps, ContentFile, ContentOutput } from "../task-types.ts";
import { translatedNote } from "../translation-stage.ts";
import { quizToGift } from "./gift.ts";
import { quizToJson } from "./json.ts";
import { quizToMoodleXml } from "./moodle-xml.ts";
import { writeQuizPdf } from "./pdf.ts";

/** The files a quiz makes (the plan sizes its last stage by them). */
export const QUIZ_FILE_COUNT = 4;

/**
 * @example
 * const output = await runQuiz(params, deps, signal, workDir, tracker);
 * output.files.map((f) => f.role); // ["json", "moodle_xml", "gift", "pdf"]
 */
export async function runQuiz(
  params: QuizParams,
  deps: ContentDeps,
  signal: AbortSignal,
  workDir: string,
  tracker: ProgressTracker,
): Promise<ContentOutput> {
  const note = await translatedNote(params.note, params.language, deps, signal, tracker);

  tracker.start(deps.llm ? "script_llm" : "script_extractive");
  const writer: QuizWriter = deps.llm ? new LlmQuizWriter(deps.llm) : new ExtractiveQuizWriter();
  const questions = await writer.write(
    {
      note,
      language: note.language,
      maxQuestions: params.count,
      count: params.count,
      difficulty: params.difficulty,
    },
    signal,
  );
  tracker.finish();

  signal.throwIfAborted();
  tracker.start("documents");
  const meta = { title: note.title.trim() || "Quiz", language: note.language };
  const text = async (name: string, content: string) => {
    const path = join(workDir, name);
    await writeFile(path, content);
    return path;
  };
  const files: ContentFile[] = [
    {
      role: "json",
      path: await text("quiz.json", quizToJson(meta, questions)),
      contentType: "application/json",
    },
    {
      role: "moodle_xml",
      path: await text("quiz.xml", quizToMoodleXml(meta.title, questions)),
      contentType: "application/xml",
    },
    {
      role: "gift",
      path: await text("quiz.gift", quizToGift(meta.title, questions)),
      contentType: "text/plain",
    },
  ];
  const pdfPath = join(workDir, "quiz.pdf");
  await writeQuizPdf(meta, questions, pdfPath);
  files.push({ role: "pdf", path: pdfPath, contentType: "application/pdf" });
  tracker.finish();

  return {
    data: {
      note_id: params.note.note_id,
      title: meta.title,
      language: meta.language,
      difficulty: params.difficulty,
      question_count: questions.length,
      text_source: deps.llm ? "llm" : "extractive",
      questions,
    },
    files,
  };
}
