import type { DecodeTimings, Token, WhisperModel } from "../../native/index.ts";
import type { DecodedSegment } from "../../protocol/postprocess/clean-transcript.ts";
import type { TimedToken, TokenLogprob } from "../../protocol/transcription-detail.ts";
import { type AudioWindow, windows } from "../audio/windows.ts";
import { SAMPLE_RATE } from "../media/pcm-stream.ts";
import { looped } from "../postprocess/looped.ts";
import type { TimeMap } from "../vad/skip-non-speech.ts";

export interface DecodeRequest {
  /** Language code, or null to detect it on the first window and keep it for the rest. */
  language: string | null;
  /** With `language` null: the codes detection may choose among (absent: any). */
  detectLanguages?: readonly string[];
  translate: boolean;
  /** The caller's context/hotword hint, given to every window as the initial prompt. */
  context: string;
  /** Bound on tokens per segment (0 = whisper's own). */
  maxTokens: number;
  /** Step of the temperature fallback (default 0.2); 0 decodes once, greedily. */
  temperatureInc?: number;
  /** Per-token times from whisper (for word timestamps); off by default. */
  tokenTimestamps?: boolean;
  /** A shorter first window (seconds), for a caller that streams the text as it is decoded. */
  firstWindowSec?: number;
  signal: AbortSignal;
  /**
   * Set when `pcm` is the input with non-speech stretches taken out (vad/skip-non-speech.ts): every
   * time is mapped back to the input's, and the duration is the input's.
   */
  timeMap?: TimeMap;
  /**
   * Work that runs on this thread while whisper decodes each window on its own (diarization): run
   * right after the window's decode starts. A part that outlasts the native decode delays the next
   * window, so it is recognition's wall time too.
   */
  alongside?: () => void;
  /**
   * Called after each window with the seconds of audio recognised so far, the window's segments and
   * the language decoded in.
   */
  onWindow?: (decodedSec: number, windowSegments: readonly DetailedSegment[], language: string) => void;
}

/** A decoded segment with the decoder figures the OpenAI-compatible endpoints show. */
export interface DetailedSegment extends DecodedSegment {
  /** Start of the segment's window in 10 ms frames (whisper's `seek`). */
  seek: number;
  /** Ids of its text tokens. */
  tokenIds: number[];
  /** Its text tokens with times from the clip start; empty unless `tokenTimestamps` was asked for. */
  timedTokens: TimedToken[];
  /** Its text tokens with their log probabilities and bytes. */
  tokenLogprobs: TokenLogprob[];
}

/** Where a run's time went, in milliseconds, summed over its windows. */
export interface DecodeStages {
  /** Waiting for the next window of PCM while no decode ran (ffmpeg or file reading). */
  pcmWaitMs: number;
  /** Getting whisper states (0 when the pool had one idle). */
  stateMs: number;
  melMs: number;
  encodeMs: number;
  /** Decoder passes: one-token, batched and prompt. */
  decodeMs: number;
  sampleMs: number;
  /**
   * Recognition wall time not in the figures above (JS, thread hand-off, result conversion, and
   * `alongside` work that outlasted the native decode).
   */
  otherMs: number;
  windows: number;
  fallbacks: number;
}

export interface DecodeRun {
  segments: DetailedSegment[];
  language: string;
  durationSec: number;
  /** Wall time of the recognition calls, from each window's start to its result (`alongside` inside). */
  asrMs: number;
  /** The run's wall time outside recognition: waiting for PCM, and starting and closing its reader (ffmpeg). */
  mediaWaitMs: number;
  stages: DecodeStages;
}

/** How much of the previous window's text conditions the next one. */
const CARRY_CHARS = 200;

/**
 * Recognises a PCM stream window by window with the resident model. The next window is read (and
 * whatever taps the stream, e.g. diarization, runs) while the current one decodes on whisper's
 * thread, so at most two windows are held. Decoder guards are on: temperature fallback, no-speech and
 * logprob thresholds, non-speech tokens suppressed, and a looped window's text is not carried over.
 */
export async function decodeStream(
  model: WhisperModel,
  pcm: AsyncIterable<Float32Array>,
  request: DecodeRequest,
): Promise<DecodeRun> {
  const iterator = windows(pcm, {
    ...(request.firstWindowSec && { firstWindowSec: request.firstWindowSec }),
  })[Symbol.asyncIterator]();
  const segments: DetailedSegment[] = [];
  let language = request.language;
  let carry = "";
  const runStarted = performance.now();
  let asrMs = 0;
  let durationSec = 0;
  const stages = emptyStages();
  let next = iterator.next();
  try {
    for (;;) {
      const waitStarted = performance.now();
      const step: IteratorResult<AudioWindow> = await next;
      stages.pcmWaitMs += performance.now() - waitStarted;
      if (step.done) break;
      const window = step.value;
      next = iterator.next();
      next.catch(() => undefined); // observed below; avoids an unhandled rejection while decoding
      const started = performance.now();
      const transcribing = model.transcribe(window.samples, {
        language: language ?? "auto",
        ...(language === null &&
          request.detectLanguages && { detectLanguages: [...request.detectLanguages] }),
        translate: request.translate,
        initialPrompt: [request.context, carry].filter(Boolean).join(" ") || undefined,
        timestamps: true,
        tokenTimestamps: request.tokenTimestamps ?? false,
        maxTokens: request.maxTokens,
        temperature: 0,
        temperatureInc: request.temperatureInc ?? 0.2,
        noSpeechThreshold: 0.6,
        logprobThreshold: -1,
        entropyThreshold: 2.4,
        suppressNonSpeech: true,
        noContext: true,
        signal: request.signal,
      });
      transcribing.catch(() => undefined); // observed below; `alongside` may throw first
      request.alongside?.();
      const transcript = await transcribing;
      const windowMs = performance.now() - started;
      asrMs += windowMs;
      addStages(stages, transcript.timings, windowMs);
      language ??= transcript.language;
      const windowText = transcript.segments.map((s) => s.text).join("");
      carry = looped(windowText) ? "" : windowText.trim().slice(-CARRY_CHARS);
      const windowEnd = window.offsetSec + window.samples.length / SAMPLE_RATE;
      const time = (sec: number, edge: "start" | "end") => request.timeMap?.toOriginal(sec, edge) ?? sec;
      const firstOfWindow = segments.length;
      for (const segment of transcript.segments) {
        segments.push({
          start: time(window.offsetSec + segment.start, "start"),
          end: time(Math.min(windowEnd, window.offsetSec + segment.end), "end"),
          text: segment.text,
          noSpeechProb: segment.noSpeechProb,
          avgLogprob: segment.avgLogprob,
          seek: Math.round(time(window.offsetSec, "start") * 100),
          tokenIds: segment.tokens.map((token) => token.id),
          timedTokens: request.tokenTimestamps ? timedTokens(segment.tokens, window.offsetSec, time) : [],
          tokenLogprobs: segment.tokens.map((token) => ({
            token: token.text,
            logprob: token.logprob,
            bytes: [...token.bytes],
          })),
        });
      }
      durationSec = time(windowEnd, "end");
      request.onWindow?.(durationSec, segments.slice(firstOfWindow), language);
    }
  } finally {
    await iterator.return?.(undefined);
  }
  // the input's length, skipped stretches included (a file of silence still has its duration)
  if (request.timeMap) durationSec = request.timeMap.originalSamples / SAMPLE_RATE;
  const mediaWaitMs = Math.max(0, performance.now() - runStarted - asrMs);
  return { segments, language: language ?? "en", durationSec, asrMs, mediaWaitMs, stages };
}

function emptyStages(): DecodeStages {
  return {
    pcmWaitMs: 0,
    stateMs: 0,
    melMs: 0,
    encodeMs: 0,
    decodeMs: 0,
    sampleMs: 0,
    otherMs: 0,
    windows: 0,
    fallbacks: 0,
  };
}

function addStages(stages: DecodeStages, t: DecodeTimings, windowMs: number): void {
  const decodeMs = t.decodeMs + t.batchdMs + t.promptMs;
  stages.stateMs += t.stateMs;
  stages.melMs += t.melMs;
  stages.encodeMs += t.encodeMs;
  stages.decodeMs += decodeMs;
  stages.sampleMs += t.sampleMs;
  stages.otherMs += Math.max(0, windowMs - t.stateMs - t.melMs - t.encodeMs - decodeMs - t.sampleMs);
  stages.windows += 1;
  stages.fallbacks += t.fallbacks;
}

/** Tokens that carry times, moved from window time to clip time (through `time`, the skip map). */
function timedTokens(
  tokens: readonly Token[],
  offsetSec: number,
  time: (sec: number, edge: "start" | "end") => number,
): TimedToken[] {
  return tokens.flatMap((token) =>
    token.t0 === undefined || token.t1 === undefined
      ? []
      : [
          {
            text: token.text,
            start: time(offsetSec + token.t0, "start"),
            end: time(offsetSec + token.t1, "end"),
          },
        ],
  );
}
