/** A shorts task: script → narration → video with its caption sidecars (or audio only). */
import { join } from "node:path";
import { type ShortsParams, VOICES } from "../../protocol/content.ts";
import { writeCaptionSidecars } from "./caption-sidecars.ts";
import { ContentError } from "./errors.ts";
import { type ProgressTracker, processSpeeds } from "./progress.ts";
import { END_PAD_SEC, renderShort } from "./render-short.ts";
import {
  DEFAULT_WORDS_PER_SEC,
  ExtractiveScriptWriter,
  LlmScriptWriter,
  type ScriptWriter,
} from "./script.ts";
import { shortNarration } from "./short-narration.ts";
import type { ContentDeps, ContentOutput } from "./task-types.ts";
import { splitWords } from "./text.ts";
import { fitSpeech } from "./tts/fit.ts";

/** Pause after the spoken title before the body begins (the narration's sentence gap). */
const TITLE_ALLOWANCE_SEC = 0.5;

/**
 * Script sized to clip_duration at the voice's measured speaking rate, narration (cut at a sentence
 * end to fit), then the video or the audio.
 *
 * @example
 * const output = await runShorts(params, deps, signal, workDir, tracker);
 */
export async function runShorts(
  params: ShortsParams,
  deps: ContentDeps,
  signal: AbortSignal,
  workDir: string,
  tracker: ProgressTracker,
): Promise<ContentOutput> {
  const speeds = deps.speeds ?? processSpeeds;
  const voice = VOICES.find((v) => v.voice_id === params.voice_id);
  if (!voice) throw new ContentError("invalid_params", `unknown voice_id "${params.voice_id}"`);

  tracker.start(deps.llm ? "script_llm" : "script_extractive");
  const wordsPerSec = speeds.speechRate(voice.voice_id, DEFAULT_WORDS_PER_SEC[voice.language]);
  const titleWords = splitWords(params.note.title).length;
  const spokenBudget = params.clip_duration - END_PAD_SEC - TITLE_ALLOWANCE_SEC;
  const maxWords = Math.max(3, Math.floor(spokenBudget * wordsPerSec) - titleWords);
  const writer: ScriptWriter = deps.llm
    ? new LlmScriptWriter(deps.llm)
    : new ExtractiveScriptWriter(deps.translate);
  const script = await writer.write({ note: params.note, language: voice.language, maxWords }, signal);
  const narration = shortNarration(script.title, script.body);
  tracker.resize("tts", narration.text.length);
  tracker.resize(
    params.is_audio_only ? "render_audio" : "render_video",
    Math.min(params.clip_duration, (titleWords + maxWords) / wordsPerSec),
  );
  tracker.finish();

  tracker.start("tts");
  const spoken = await deps.synthesizer.synthesize(
    narration.text,
    voice,
    signal,
    join(workDir, "narration.wav"),
  );
  speeds.observeSpeechRate(voice.voice_id, spoken.words.length, spoken.durationSec);
  const speech = await fitSpeech(spoken, params.clip_duration - END_PAD_SEC);
  tracker.finish();
  signal.throwIfAborted();

  const renderKey = params.is_audio_only ? "render_audio" : "render_video";
  tracker.resize(renderKey, speech.durationSec + END_PAD_SEC);
  tracker.start(renderKey);
  const media = await renderShort({
    title: script.title,
    speech,
    titleWordCount: narration.titleWordCount,
    bgId: params.bg_id,
    clipDurationSec: params.clip_duration,
    audioOnly: params.is_audio_only,
    aspect: params.aspect,
    workDir,
    tools: deps.tools,
    signal,
    onProgress: (fraction) => tracker.advance(fraction),
  });
  tracker.finish(media.durationSec);

  return {
    data: {
      note_id: params.note.note_id,
      title: script.title,
      language: voice.language,
      duration: Math.round(media.durationSec * 100) / 100,
      voice_id: voice.voice_id,
      is_audio_only: params.is_audio_only,
      ...(params.is_audio_only ? {} : { aspect: params.aspect }),
      text_source: script.source,
      script: narration.text,
      word_timing: speech.timing,
    },
    files: [
      { role: params.is_audio_only ? "audio" : "video", path: media.path, contentType: media.contentType },
      ...(media.cues ? await writeCaptionSidecars(media.cues, media.durationSec, workDir) : []),
    ],
  };
}
