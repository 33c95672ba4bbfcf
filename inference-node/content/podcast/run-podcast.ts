/**
 * An audio overview task: (the note translated) → the script → each line in its host's voice → the
 * M4A and MP3, with the script as JSON and text beside them.
 */
import type { PodcastFormat, PodcastLength, PodcastParams } from "../../../protocol/content.ts";
import type { PlannedStage } from "../content-kinds.ts";
import type { ProgressTracker } from "../progress.ts";
import type { ContentDeps, ContentOutput } from "../task-types.ts";
import { noteLanguage } from "../text.ts";
import { translatedNote, translationStage } from "../translation-stage.ts";
import { podcastVoices, renderPodcast } from "./render.ts";
import { extractivePodcastScript, llmPodcastScript, type PodcastRequest } from "./script.ts";

/**
 * Seconds an overview runs before its script is written (measured on the sample notes: the script
 * then resizes the stages); a brief's are its targets with their pauses.
 */
const PLANNED_SECONDS: Record<PodcastFormat, Record<PodcastLength, number>> = {
  deep_dive: { short: 60, default: 80, long: 100 },
  brief: { short: 45, default: 60, long: 75 },
};
/** Characters spoken per second of audio, to size the voice stage before the script exists. */
const CHARS_PER_SEC = 15;

export function podcastPlan(params: PodcastParams, deps: ContentDeps): PlannedStage[] {
  const seconds = PLANNED_SECONDS[params.format][params.length];
  return [
    ...translationStage(params.note, params.language),
    { step: "writing_script", key: deps.llm ? "script_llm" : "script_extractive", units: 1 },
    { step: "synthesizing_voice", key: "tts", units: seconds * CHARS_PER_SEC },
    { step: "rendering_audio", key: "podcast_audio", units: seconds },
  ];
}

/**
 * Renders the overview into `workDir`.
 *
 * @example const output = await runPodcast(params, deps, signal, workDir, tracker);
 */
export async function runPodcast(
  params: PodcastParams,
  deps: ContentDeps,
  signal: AbortSignal,
  workDir: string,
  tracker: ProgressTracker,
): Promise<ContentOutput> {
  // the voices first: a wrong one fails before anything is translated or written
  const language = params.language ?? noteLanguage(params.note.language, params.note.content);
  const voices = podcastVoices(language, params, params.format === "deep_dive");
  const note = await translatedNote(params.note, params.language, deps, signal, tracker);

  tracker.start(deps.llm ? "script_llm" : "script_extractive");
  const request: PodcastRequest = {
    note,
    language: note.language,
    format: params.format,
    length: params.length,
  };
  const script = deps.llm
    ? await llmPodcastScript(request, deps.llm, signal)
    : extractivePodcastScript(request);
  const spokenChars = script.lines.reduce((sum, line) => sum + line.text.length, 0);
  tracker.resize("tts", spokenChars);
  tracker.resize("podcast_audio", spokenChars / CHARS_PER_SEC);
  tracker.finish();

  tracker.start("tts");
  const title = note.title.trim() || params.note.title.trim() || note.note_id;
  const audio = await renderPodcast({
    title,
    script,
    voices,
    synthesizer: deps.synthesizer,
    tools: deps.tools,
    workDir,
    signal,
    onProgress: (phase, fraction) => {
      tracker.advance(fraction);
      if (phase === "speaking" && fraction === 1) {
        tracker.finish();
        tracker.start("podcast_audio");
      }
    },
  });
  tracker.finish(audio.durationSec);

  return {
    data: {
      note_id: params.note.note_id,
      title,
      language: note.language,
      format: params.format,
      length: params.length,
      duration: audio.durationSec,
      voices: audio.voices,
      chapters: audio.chapters,
      text_source: deps.llm ? "llm" : "extractive",
    },
    files: [
      { role: "audio", path: audio.m4aPath, contentType: "audio/mp4" },
      { role: "audio_mp3", path: audio.mp3Path, contentType: "audio/mpeg" },
      { role: "json", path: audio.scriptJsonPath, contentType: "application/json" },
      { role: "txt", path: audio.scriptTxtPath, contentType: "text/plain" },
    ],
  };
}
