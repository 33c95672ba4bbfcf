/**
 * The content engine's registry of kinds: each content kind's stages (the plan its progress is
 * estimated from) and the function that runs them. runContentTask looks the kind up here.
 */
import type { ContentStep } from "../../protocol/content.ts";
import type { ContentKind, TaskParams } from "../../protocol/task.ts";
import { flashcardsStages } from "./flashcards/flashcards-stages.ts";
import { mindMapStages } from "./mindmap/mindmap-stages.ts";
import { runNoteTranslation } from "./note-translation/run-note-translation.ts";
import { podcastPlan, runPodcast } from "./podcast/run-podcast.ts";
import type { ProgressTracker, StageKey } from "./progress.ts";
import { QUIZ_FILE_COUNT, runQuiz } from "./quiz-export/run-quiz.ts";
import { runQuizVideo } from "./run-quiz.ts";
import { runShorts } from "./run-shorts.ts";
import { needsTranslation, runSlides } from "./run-slides.ts";
import { runStudyGuide, STUDY_GUIDE_FILE_COUNT } from "./study-guide/run-study-guide.ts";
import type { ContentDeps, ContentOutput } from "./task-types.ts";
import { translationStage } from "./translation-stage.ts";
import { runVideoOverview, videoOverviewPlan } from "./video-overview/run-video-overview.ts";

/** One stage of a render as the progress tracker plans it. */
export interface PlannedStage {
  step: ContentStep;
  key: StageKey;
  units: number;
}

export interface ContentKindStages<K extends ContentKind> {
  /** The stages the render goes through, in order, with their sizes (progress and ETA come from them). */
  plan(params: TaskParams<K>, deps: ContentDeps): PlannedStage[];
  /** Renders the kind's files into `workDir`, reporting each stage to `tracker`. */
  run(
    params: TaskParams<K>,
    deps: ContentDeps,
    signal: AbortSignal,
    workDir: string,
    tracker: ProgressTracker,
  ): Promise<ContentOutput>;
}

/** A narrated render: a script (by the LLM when one is configured), its voice, then the video or audio. */
function narratedPlan(
  first: ContentStep,
  deps: ContentDeps,
  seconds: number,
  audioOnly: boolean,
): PlannedStage[] {
  return [
    { step: first, key: deps.llm ? "script_llm" : "script_extractive", units: 1 },
    { step: "synthesizing_voice", key: "tts", units: seconds * 15 },
    audioOnly
      ? { step: "rendering_audio", key: "render_audio", units: seconds }
      : { step: "rendering_video", key: "render_video", units: seconds },
  ];
}

/** A quiz video's length as planned: about 45 s of questions and reveals. */
const QUIZ_VIDEO_SECONDS = 45;

export const CONTENT_KIND_STAGES: { readonly [K in ContentKind]: ContentKindStages<K> } = {
  shorts: {
    plan: (params, deps) => narratedPlan("writing_script", deps, params.clip_duration, params.is_audio_only),
    run: runShorts,
  },
  quiz_video: {
    plan: (_params, deps) => narratedPlan("writing_quiz", deps, QUIZ_VIDEO_SECONDS, false),
    run: runQuizVideo,
  },
  slide: {
    plan: (params) => [
      { step: "building_slides", key: "script_extractive", units: 1 },
      ...(needsTranslation(params)
        ? [{ step: "translating", key: "translate", units: params.note.content.length } as const]
        : []),
      { step: "building_slides", key: "slides", units: params.slide_count.max },
    ],
    run: runSlides,
  },
  quiz: {
    plan: (params, deps) => [
      ...translationStage(params.note, params.language),
      { step: "writing_quiz", key: deps.llm ? "script_llm" : "script_extractive", units: 1 },
      { step: "writing_quiz", key: "documents", units: QUIZ_FILE_COUNT },
    ],
    run: runQuiz,
  },
  study_guide: {
    plan: (params, deps) => [
      ...translationStage(params.note, params.language),
      { step: "writing_guide", key: deps.llm ? "script_llm" : "script_extractive", units: 1 },
      { step: "writing_guide", key: "documents", units: STUDY_GUIDE_FILE_COUNT },
    ],
    run: runStudyGuide,
  },
  flashcards: flashcardsStages,
  mindmap: mindMapStages,
  podcast: { plan: podcastPlan, run: runPodcast },
  video_overview: { plan: videoOverviewPlan, run: runVideoOverview },
  note_translation: {
    plan: (params) => [{ step: "translating", key: "translate", units: params.note.content.length }],
    run: runNoteTranslation,
  },
};
