import { languageName } from "../../protocol/languages.ts";
import type { CleanTranscript, DecodedSegment } from "../../protocol/postprocess/clean-transcript.ts";
import { formatTimestamp } from "../../protocol/timestamp.ts";
import type { TranscriptionResult } from "../../protocol/transcription.ts";

/** One segment a remote tier gave back, with whisper's confidence figures when it sent them. */
export interface RemoteSegment {
  start: number;
  end: number;
  text: string;
  noSpeechProb?: number;
  avgLogprob?: number;
}

/** What every remote tier gives back, before it becomes our TranscriptionResult. Times in seconds. */
export interface RemoteTranscript {
  text: string;
  /** Detected or requested language as a short code (`en`); "" when the tier did not say. */
  language: string;
  /** The audio's length when the tier reported it, else the last segment's end. */
  durationSec: number | null;
  segments: RemoteSegment[];
  /** Whether `segments` carry the tier's timings (false: a text-only answer, `segments` empty). */
  hasTimestamps: boolean;
}

/** The audio a remote tier is sent: the stored bytes, untouched. */
export interface RemoteAudio {
  bytes: Uint8Array;
  filename: string;
  contentType: string;
}

/** What a remote call asks for, from the task's params. */
export interface RemoteAsk {
  language: string | null;
  prompt: string;
  task: "transcribe" | "translate";
}

/** Wall-clock milliseconds of a remote task's stages, as the spec's timings define them. */
export interface RemoteTimings {
  /** Reading the media (R2 or the client's URL). */
  downloadMs: number;
  /** The remote calls themselves: no media read, no backoff between tries. */
  asrMs: number;
  /** Cleaning and translation. */
  postMs: number;
}

/**
 * The remote answer cleaned by the pipeline every tier runs (protocol/postprocess/clean-transcript.ts):
 * markers, repetition loops and doubted silence hallucinations removed, spacing and Vietnamese capitals
 * fixed. A text-only answer is cleaned as one piece. The caller times it and translates its `text`
 * before building the result. Imported on first use: building the Vietnamese lexicon costs about
 * 0.1 s of CPU, which every Worker isolate would otherwise pay at start-up, remote tier or not.
 */
export async function cleanRemoteTranscript(transcript: RemoteTranscript): Promise<CleanTranscript> {
  const { cleanTranscript } = await import("../../protocol/postprocess/clean-transcript.ts");
  const decoded: DecodedSegment[] = transcript.hasTimestamps
    ? transcript.segments.map((s) => ({
        start: s.start,
        end: Math.max(s.start, s.end),
        text: s.text,
        // No figure is no evidence of silence: a listed phrase then stays (hallucinations.ts).
        noSpeechProb: s.noSpeechProb ?? 0,
        avgLogprob: s.avgLogprob ?? Number.NaN,
      }))
    : [
        {
          start: 0,
          end: transcript.durationSec ?? 0,
          text: transcript.text,
          noSpeechProb: 0,
          avgLogprob: Number.NaN,
        },
      ];
  return cleanTranscript(decoded, transcript.language);
}

/**
 * The same TranscriptionResult a node writes: cleaned segments, no speaker labels (no remote tier
 * diarizes), `has_timestamps: false` and no segments for a text-only answer, the translation the
 * caller made (or null).
 */
export function toTranscriptionResult(
  transcript: RemoteTranscript,
  cleaned: CleanTranscript,
  modelId: string,
  timings: RemoteTimings,
  translation: string | null,
): TranscriptionResult {
  const segments = transcript.hasTimestamps
    ? cleaned.segments.map((s) => ({
        start: s.start,
        end: s.end,
        start_fmt: formatTimestamp(s.start),
        end_fmt: formatTimestamp(s.end),
        text: s.text,
        speaker: null,
      }))
    : [];
  const durationSec = transcript.durationSec ?? transcript.segments.at(-1)?.end ?? 0;
  const { downloadMs, asrMs, postMs } = timings;
  return {
    text: cleaned.text,
    raw_text: cleaned.rawText,
    // Results name the language as nodes do (`English`).
    language: languageName(transcript.language) ?? transcript.language,
    model: modelId,
    duration_sec: durationSec,
    asr_ms: asrMs,
    diarize_ms: 0,
    total_ms: downloadMs + asrMs + postMs,
    rtf: durationSec > 0 ? asrMs / 1000 / durationSec : 0,
    segments,
    segment_count: segments.length,
    has_timestamps: segments.length > 0,
    speaker_turns: null,
    speakers_pending: false,
    translation,
    audio_url: null,
  };
}
