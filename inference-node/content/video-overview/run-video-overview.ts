/**
 * A video overview task: (the note translated) → its slide deck outlined and drawn → each slide's
 * narration spoken → the 1920x1080 video with captions burned in, the SRT/VTT sidecars and the deck's PDF.
 */
import { narrationVoices, type VideoOverviewParams } from "../../../protocol/content.ts";
import type { PlannedStage } from "../content-kinds.ts";
import { ContentError } from "../errors.ts";
import type { ProgressTracker } from "../progress.ts";
import type { ContentDeps, ContentOutput } from "../task-types.ts";
import { noteLanguage } from "../text.ts";
import { translatedNote, translationStage } from "../translation-stage.ts";
import { renderVideoOverview } from "./render.ts";

/** Slides planned before the deck is outlined (its most); the outline then resizes the stages. */
const PLANNED_SLIDES = 8;
/** Characters spoken per second, and the lead-in and tail each slide adds, to size the video. */
const CHARS_PER_SEC = 15;
const SLIDE_PAUSES_SEC = 1;

const videoSeconds = (chars: number, slides: number) => chars / CHARS_PER_SEC + slides * SLIDE_PAUSES_SEC;

export function videoOverviewPlan(params: VideoOverviewParams): PlannedStage[] {
  const chars = params.note.content.length;
  return [
    ...translationStage(params.note, params.language),
    { step: "building_slides", key: "overview_slides", units: PLANNED_SLIDES },
    { step: "synthesizing_voice", key: "tts", units: chars },
    { step: "rendering_video", key: "overview_video", units: videoSeconds(chars, PLANNED_SLIDES) },
  ];
}

/**
 * Renders the overview into `workDir`.
 *
 * @example const output = await runVideoOverview(params, deps, signal, workDir, tracker);
 */
export async function runVideoOverview(
  params: VideoOverviewParams,
  deps: ContentDeps,
  signal: AbortSignal,
  workDir: string,
  tracker: ProgressTracker,
): Promise<ContentOutput> {
  // the voice first: a wrong one fails before anything is translated or drawn
  const language = params.language ?? noteLanguage(params.note.language, params.note.content);
  const voices = narrationVoices(language, { voice_id: params.voice_id }, false);
  if (!voices.ok) throw new ContentError("invalid_params", voices.message);
  const note = await translatedNote(params.note, params.language, deps, signal, tracker);

  tracker.start("overview_slides");
  const next = { slides: "tts", narration: "overview_video" } as const;
  const video = await renderVideoOverview({
    note,
    language: note.language,
    templateId: params.template_id,
    voice: voices.first,
    community: params.community,
    synthesizer: deps.synthesizer,
    tools: deps.tools,
    workDir,
    signal,
    onOutline: ({ slides, narrationChars }) => {
      tracker.resize("overview_slides", slides);
      tracker.resize("tts", narrationChars);
      tracker.resize("overview_video", videoSeconds(narrationChars, slides));
    },
    onProgress: (phase, fraction) => {
      tracker.advance(fraction);
      if (phase !== "video" && fraction === 1) {
        tracker.finish();
        tracker.start(next[phase]);
      }
    },
  });
  tracker.finish(video.durationSec);

  return {
    data: {
      note_id: params.note.note_id,
      title: note.title.trim() || params.note.title.trim() || note.note_id,
      language: note.language,
      duration: video.durationSec,
      slide_count: video.slides.length,
      template_id: params.template_id,
      voice_id: voices.first.voice_id,
      community: params.community,
      text_source: "extractive",
    },
    files: [
      { role: "video", path: video.videoPath, contentType: "video/mp4" },
      { role: "srt", path: video.srtPath, contentType: "application/x-subrip" },
      { role: "vtt", path: video.vttPath, contentType: "text/vtt" },
      { role: "pdf", path: video.pdfPath, contentType: "application/pdf" },
    ],
  };
}
