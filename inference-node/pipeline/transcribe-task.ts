import { normalizeLanguage } from "../../protocol/languages.ts";
import { type LeaseOf, MAX_PARTIAL_SEGMENT_TOKENS, MAX_PARTIAL_SEGMENTS } from "../../protocol/node.ts";
import { cleanTranscript } from "../../protocol/postprocess/clean-transcript.ts";
import type { TranscriptionResult } from "../../protocol/transcription.ts";
import type { DetailedTranscriptionResult } from "../../protocol/transcription-detail.ts";
import { translationTarget } from "../../protocol/translate.ts";
import type { TaskContext } from "../lease-loop.ts";
import type { Logger } from "../logger.ts";
import { MediaError } from "../media/media-error.ts";
import { openPcm, SAMPLE_RATE } from "../media/pcm-stream.ts";
import type { ResidentModel } from "../model.ts";
import { buildTranscriptionResult } from "../postprocess/build-result.ts";
import { TaskFailureError } from "../task-failure.ts";
import type { Translator } from "../translate/translator.ts";
import { chunkingPlan } from "../vad/chunking-plan.ts";
import type { VoiceActivity } from "../vad/voice-activity.ts";
import { type DetailedSegment, decodeStream } from "./decode-stream.ts";
import { fetchMedia, type MediaSourceOptions } from "./fetch-media.ts";
import { loadKnownVoices, nameTurns } from "./known-speakers.ts";
import { assign, buildDetail, tokenLogprobs } from "./result-detail.ts";
import { speechStream } from "./speech-stream.ts";
import { translateResult } from "./translate-result.ts";

/** Temperature every decode starts at (decode-stream.ts); whisper.cpp does not report a fallback's. */
const START_TEMPERATURE = 0;

export interface TranscribeDeps {
  model: ResidentModel;
  translator: Translator | null;
  /** Whether the translator serves a direction (MtStatus.translates); without it every direction is tried. */
  translates?: (from: string, to: string) => boolean;
  diarize: boolean;
  /** The node's voice activity detector. */
  vad: VoiceActivity;
  /**
   * Non-speech stretches longer than this (s) are not decoded, with the Silero VAD, for a task that
   * does not set its own `chunking`; 0 = decode all.
   */
  skipNonSpeechSec: number;
  maxTokens: number;
  /** Step of whisper's temperature fallback; 0 disables it (default 0.2). */
  temperatureInc?: number;
  media: Omit<MediaSourceOptions, "signal">;
  logger: Logger;
}

/**
 * Runs one transcription: fetch the media, stream it through ffmpeg once, recognise it window by
 * window while diarization reads the same stream, post-process, translate when configured. An
 * interactive task (the synchronous OpenAI-compatible endpoints) also gets the decoder `detail`.
 */
export async function transcribe(
  lease: LeaseOf<"transcribe">,
  deps: TranscribeDeps,
  context: TaskContext,
): Promise<DetailedTranscriptionResult> {
  const { signal } = context;
  const { params } = lease;
  const language = resolveLanguage(params.language, deps.model);
  // Whisper translates into English only; another target is transcribed, then translated (translate-result.ts).
  const translateTo = params.task === "translate" ? (params.target_language ?? "en") : null;
  const speechToEnglish = translateTo === "en";
  const interactive = lease.lane === "interactive";
  const wordTimes = interactive && params.word_timestamps;

  const downloadStarted = performance.now();
  // reference clips first: a bad one fails the task before the media is decoded
  // every chunk of a download is a sign of life for the node's stall limit (lease-loop.ts)
  const sources = { ...deps.media, signal, onData: context.alive };
  const knownVoices = deps.diarize ? await loadKnownVoices(lease, sources) : [];
  const media = await fetchMedia(lease, sources);
  const downloadMs = performance.now() - downloadStarted;
  try {
    const openStarted = performance.now();
    const source = await openPcm(media.path, { signal, maxDurationSec: lease.max_audio_duration_sec });
    const openMs = performance.now() - openStarted;
    const references = knownVoices.map((voice) => voice.reference);
    const speech = speechStream(source.chunks, {
      vad: deps.vad,
      diarize: deps.diarize,
      references,
      ...chunkingPlan(params.chunking, deps.skipNonSpeechSec),
    });
    const { timeMap } = speech;
    const run = await decodeStream(deps.model.whisper, speech.pcm, {
      language,
      ...(params.detect_languages && { detectLanguages: params.detect_languages }),
      translate: speechToEnglish,
      context: params.context,
      maxTokens: deps.maxTokens,
      temperatureInc: deps.temperatureInc,
      tokenTimestamps: wordTimes,
      ...(params.stream_partials && { firstWindowSec: STREAM_FIRST_WINDOW_SEC }),
      ...(timeMap && { timeMap }),
      ...(speech.diarizing && { alongside: speech.diarizeAlongside }),
      signal,
      onWindow: (sec, windowSegments, decodedLanguage) => {
        const expectedSec = source.durationSec;
        context.progress(expectedSec ? Math.min(95, (sec / expectedSec) * 95) : 0);
        // a streaming caller reads each window's text, cleaned as the result will be, as it is decoded
        if (params.stream_partials) {
          context.partial(partialSegments(windowSegments, decodedLanguage, params.logprobs === true));
        }
      },
    });
    if (run.durationSec === 0) throw new MediaError("media_empty", "the media contains no audio");
    // clustered beside the last window's decode; only a window that ended exactly at the input's
    // end leaves it to run here, after recognition
    const turns = speech.finishDiarization();
    const speakerTurns = turns && nameTurns(turns, speech.speakerProfiles(), knownVoices);
    const diarizeMs = speech.diarizeMs();
    // the spec's decode term: opening the media (its checks, then a direct WAV read or ffmpeg's
    // start), every wait for its PCM while whisper had nothing to decode, and closing the reader
    const decodeMs = openMs + run.mediaWaitMs;

    const postStarted = performance.now();
    const outputLanguage = speechToEnglish ? "en" : run.language;
    const translation = translateTo
      ? null
      : await translateText(cleanTranscript(run.segments, outputLanguage).text, outputLanguage, deps, signal);
    const transcript = buildTranscriptionResult({
      segments: run.segments,
      language: outputLanguage,
      model: deps.model.id,
      durationSec: run.durationSec,
      timings: { downloadMs, decodeMs, asrMs: run.asrMs, diarizeMs, postMs: performance.now() - postStarted },
      speakerTurns,
      translation,
    });
    const result =
      translateTo && !speechToEnglish
        ? await translated(transcript, run.language, translateTo, deps, context)
        : transcript;
    const postMs = performance.now() - postStarted;
    // one line per task with the cost of every stage (read by bench/pipeline.ts and bench/sync.ts)
    deps.logger.info(
      {
        task_id: lease.task_id,
        reader: source.reader,
        downloadMs,
        mediaDecodeMs: decodeMs,
        asrMs: run.asrMs,
        ...run.stages,
        skippedSec: timeMap ? (timeMap.originalSamples - timeMap.keptSamples) / SAMPLE_RATE : 0,
        diarizeMs,
        postMs,
      },
      "task stages",
    );
    // a translated text no longer lines up with the decoder's tokens and word times
    if (!interactive || result !== transcript) return result;
    const detail = buildDetail(result.segments, run.segments, {
      words: wordTimes,
      temperature: START_TEMPERATURE,
      logprobs: params.logprobs === true,
    });
    return { ...result, detail };
  } finally {
    await media.remove();
  }
}

/**
 * A streamed transcription's first window (stream=true): its first words come after about this much
 * audio is decoded instead of a whole 30 s window, for one more encoder pass over the file.
 */
export const STREAM_FIRST_WINDOW_SEC = 10;

/** The transcript in `to`, its translation time counted in total_ms (it is post-processing). */
async function translated(
  transcript: TranscriptionResult,
  from: string,
  to: string,
  deps: TranscribeDeps,
  context: Pick<TaskContext, "signal" | "alive">,
): Promise<TranscriptionResult> {
  const started = performance.now();
  const result = await translateResult(transcript, from, to, deps.translator, context.signal, context.alive);
  return { ...result, total_ms: transcript.total_ms + (performance.now() - started) };
}

/** Auto-detect is only for the multilingual base kind; a fine-tuned model needs the language. */
function resolveLanguage(requested: string | null, model: ResidentModel): string | null {
  const choice = normalizeLanguage(requested);
  if (choice.kind === "unsupported") {
    throw new TaskFailureError("unsupported_language", `unsupported language: ${choice.input}`);
  }
  if (choice.kind === "language") return choice.code;
  if (model.entry.kind !== "local_base") {
    throw new TaskFailureError(
      "language_required",
      `model ${model.id} needs a language; auto-detect is only available with the base model`,
    );
  }
  return null;
}

/** VI<->EN translation of the cleaned text; a failing backend leaves it null, never fails the task. */
async function translateText(
  text: string,
  language: string,
  deps: TranscribeDeps,
  signal: AbortSignal,
): Promise<string | null> {
  const target = translationTarget(language);
  if (!deps.translator || !target || !text || deps.translates?.(language, target) === false) return null;
  try {
    return await deps.translator.translate(text, language, target, signal);
  } catch (error) {
    deps.logger.warn({ err: String(error) }, "translation failed; completing without it");
    return null;
  }
}

/** A window's segments as a partial report: cleaned, at most MAX_PARTIAL_SEGMENTS of them. */
function partialSegments(segments: readonly DetailedSegment[], language: string, logprobs: boolean) {
  const cleaned = cleanTranscript(segments, language).segments.slice(0, MAX_PARTIAL_SEGMENTS);
  const sources = logprobs ? assign(cleaned, segments) : [];
  return cleaned.map(({ start, end, text }, index) => ({
    start,
    end,
    text: text.slice(0, 4_000),
    ...(logprobs && {
      logprobs: tokenLogprobs(sources[index] ?? []).slice(0, MAX_PARTIAL_SEGMENT_TOKENS),
    }),
  }));
}
