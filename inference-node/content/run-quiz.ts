/** A quiz-video task: questions → narrated, counted-down, revealed video, with its narration's SRT/VTT. */
import { type QuizVideoParams, VOICES } from "../../protocol/content.ts";
import { writeCaptionSidecars } from "./caption-sidecars.ts";
import { ContentError } from "./errors.ts";
import type { ProgressTracker } from "./progress.ts";
import { ExtractiveQuizWriter, LlmQuizWriter, type QuizWriter } from "./quiz.ts";
import { quizNarration, renderQuiz } from "./render-quiz.ts";
import type { ContentDeps, ContentOutput } from "./task-types.ts";
import { quizTheme } from "./themes.ts";
import { spokenTitle } from "./title-opening.ts";

/** Questions asked at most in one quiz video (about 12-15 s each). */
export const MAX_QUIZ_QUESTIONS = 5;
/** Seconds of video per question besides its narration (countdown, pauses). */
const QUESTION_OVERHEAD_SEC = 4.5;

/**
 * Questions (3-5, by note length), then narration and the video.
 *
 * @example
 * const output = await runQuizVideo(params, deps, signal, workDir, tracker);
 */
export async function runQuizVideo(
  params: QuizVideoParams,
  deps: ContentDeps,
  signal: AbortSignal,
  workDir: string,
  tracker: ProgressTracker,
): Promise<ContentOutput> {
  const voice = VOICES.find((v) => v.voice_id === params.voice_id);
  if (!voice) throw new ContentError("invalid_params", `unknown voice_id "${params.voice_id}"`);
  const theme = quizTheme(params.template_id);

  tracker.start(deps.llm ? "script_llm" : "script_extractive");
  const writer: QuizWriter = deps.llm
    ? new LlmQuizWriter(deps.llm)
    : new ExtractiveQuizWriter(deps.translate);
  const questions = await writer.write(
    { note: params.note, language: voice.language, maxQuestions: MAX_QUIZ_QUESTIONS },
    signal,
  );
  const title = params.note.title.trim() || "Quiz";
  const topic = spokenTitle(params.note) ?? title;
  const characters = quizNarration(topic, questions, voice.language).join(" ").length;
  tracker.resize("tts", characters);
  // ~15 characters a second of speech, plus the countdowns and pauses.
  tracker.resize("render_video", characters / 15 + questions.length * QUESTION_OVERHEAD_SEC);
  tracker.finish();

  tracker.start("tts");
  let rendering = false;
  const media = await renderQuiz({
    title,
    spokenTitle: topic,
    questions,
    language: voice.language,
    voice,
    synthesizer: deps.synthesizer,
    theme,
    bgId: params.bg_id,
    workDir,
    tools: deps.tools,
    signal,
    onSpeechProgress: (fraction) => tracker.advance(fraction),
    onRenderProgress: (fraction) => {
      if (!rendering) {
        rendering = true;
        tracker.finish(characters);
        tracker.start("render_video");
      }
      tracker.advance(fraction);
    },
  });
  tracker.finish(media.durationSec);

  return {
    data: {
      note_id: params.note.note_id,
      title,
      language: voice.language,
      duration: Math.round(media.durationSec * 100) / 100,
      question_count: questions.length,
      questions,
      voice_id: voice.voice_id,
      text_source: deps.llm ? "llm" : "extractive",
    },
    files: [
      { role: "video", path: media.path, contentType: media.contentType },
      ...(await writeCaptionSidecars(media.cues, media.durationSec, workDir)),
    ],
  };
}
