import { languageName } from "../../protocol/languages.ts";
import { formatTimestamp } from "../../protocol/timestamp.ts";
import type { TranscriptionResult } from "../../protocol/transcription.ts";

/** What every remote tier gives back, before it becomes our TranscriptionResult. Times in seconds. */
export interface RemoteTranscript {
  text: string;
  /** Detected or requested language as a short code (`en`); "" when the tier did not say. */
  language: string;
  /** The audio's length when the tier reported it, else the last segment's end. */
  durationSec: number | null;
  segments: { start: number; end: number; text: string }[];
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

/**
 * The remote answer as the same TranscriptionResult a node writes: segments trimmed and formatted, no
 * speaker labels (no remote tier diarizes), no translation (nodes run the VI↔EN backends).
 */
export function toTranscriptionResult(
  transcript: RemoteTranscript,
  modelId: string,
  elapsedMs: number,
): TranscriptionResult {
  const segments = transcript.segments
    .map((s) => ({ ...s, text: s.text.trim() }))
    .filter((s) => s.text.length > 0)
    .map((s) => ({
      start: s.start,
      end: Math.max(s.start, s.end),
      start_fmt: formatTimestamp(s.start),
      end_fmt: formatTimestamp(Math.max(s.start, s.end)),
      text: s.text,
      speaker: null,
    }));
  const text = segments.length > 0 ? segments.map((s) => s.text).join(" ") : transcript.text.trim();
  const durationSec = transcript.durationSec ?? segments.at(-1)?.end ?? 0;
  return {
    text,
    raw_text: transcript.text.trim() || text,
    // Results name the language as nodes do (`English`).
    language: languageName(transcript.language) ?? transcript.language,
    model: modelId,
    duration_sec: durationSec,
    asr_ms: elapsedMs,
    diarize_ms: 0,
    total_ms: elapsedMs,
    rtf: durationSec > 0 ? elapsedMs / 1000 / durationSec : 0,
    segments,
    segment_count: segments.length,
    has_timestamps: segments.length > 0,
    speaker_turns: null,
    speakers_pending: false,
    translation: null,
    audio_url: null,
  };
}
