/**
 * From the decoder's segments to the TranscriptionResult a task completes with: the cleaning pipeline
 * every tier shares (protocol/postprocess/clean-transcript.ts), speaker labels, and the timing numbers.
 */
import { normalizeLanguage } from "../../protocol/languages.ts";
import {
  type CleanOptions,
  type CleanSegment,
  cleanTranscript,
  type DecodedSegment,
} from "../../protocol/postprocess/clean-transcript.ts";
import { formatTimestamp } from "../../protocol/timestamp.ts";
import type { SpeakerTurn, TranscriptionResult } from "../../protocol/transcription.ts";
import { assignSpeakers } from "../diarize/assign.ts";

/**
 * The speaker whose turns overlap [start, end] the longest in total, or null when none does: the
 * diarizer's own `assignSpeakers` rule, applied to one span.
 *
 * @example
 * speakerByOverlap(1, 3, [{ start: 0, end: 1.5, speaker: "SPEAKER_00" }, { start: 1.5, end: 4, speaker: "SPEAKER_01" }]);
 * // "SPEAKER_01"
 */
export function speakerByOverlap(start: number, end: number, turns: readonly SpeakerTurn[]): string | null {
  return assignSpeakers([{ start, end }], [...turns])[0]?.speaker ?? null;
}

/** The Title-case name of a decoded language ("vi" → "Vietnamese", "zh-CN" → "Chinese"); unknown input as is. */
function languageName(code: string): string {
  const choice = normalizeLanguage(code);
  return choice.kind === "language" ? choice.name : code;
}

/** Wall-clock milliseconds of each stage of the task on the node. */
export interface ResultTimings {
  /** Fetching the media. */
  downloadMs: number;
  /**
   * Media decoding recognition waited for: opening the media and every wait for ffmpeg's PCM while
   * whisper had nothing to decode (0 when absent).
   */
  decodeMs?: number;
  /** Recognition. */
  asrMs: number;
  /** The diarizer's own wall time (feeding and clustering), beside recognition; 0 or absent when disabled. */
  diarizeMs?: number;
  /** Post-processing, translation included. */
  postMs: number;
}

export interface BuildResultInput {
  segments: readonly DecodedSegment[];
  /** Decoded language code ("vi"); the result reports its Title-case name. */
  language: string;
  /** Registry id of the producing model. */
  model: string;
  durationSec: number;
  timings: ResultTimings;
  /** Raw diarization turns; null or absent when diarization is disabled. */
  speakerTurns?: readonly SpeakerTurn[] | null;
  /** Speaker for a cleaned segment's span; defaults to the longest-overlapping turn. */
  assignSpeaker?: (start: number, end: number) => string | null;
  /** VI<->EN translation of the cleaned text; null when not configured or it failed. */
  translation?: string | null;
  options?: CleanOptions;
}

/**
 * Builds the TranscriptionResult of a finished task. `audio_url` is null: the Worker mints it on read.
 *
 * Times: the spec's total, total_ms = downloadMs + decodeMs + max(asrMs, diarizeMs) + postMs. The
 * pipeline runs the diarizer while whisper decodes (pipeline/speech-stream.ts), so only the longer
 * of the two counts, and the decode term is the time recognition waited for ffmpeg; the sum is the
 * task's wall time on the node (test/node/pipeline-timings.test.ts).
 * rtf = asr_ms / 1000 / duration_sec, 0 for a zero-length clip.
 *
 * @example
 * const result = buildTranscriptionResult({
 *   segments: [{ start: 0, end: 2.5, text: " xin chào các bạn.", noSpeechProb: 0.02, avgLogprob: -0.3 }],
 *   language: "vi",
 *   model: "whisper-base",
 *   durationSec: 2.5,
 *   timings: { downloadMs: 120, asrMs: 900, diarizeMs: 400, postMs: 5 },
 * });
 * // result.text === "Xin chào các bạn.", result.total_ms === 1025, result.rtf === 0.36
 */
export function buildTranscriptionResult(input: BuildResultInput): TranscriptionResult {
  const { rawText, text, segments } = cleanTranscript(input.segments, input.language, input.options);
  const turns = input.speakerTurns ?? null;
  const speakerOf = (seg: CleanSegment): string | null => {
    if (seg.speaker !== undefined) return seg.speaker;
    if (input.assignSpeaker) return input.assignSpeaker(seg.start, seg.end);
    return turns ? speakerByOverlap(seg.start, seg.end, turns) : null;
  };
  // an enrolled voice's name stays beside its cluster's label (known-speakers.ts)
  const names = new Map(
    (turns ?? []).flatMap((turn) => (turn.speaker_name ? [[turn.speaker, turn.speaker_name] as const] : [])),
  );
  const { downloadMs, decodeMs = 0, asrMs, diarizeMs = 0, postMs } = input.timings;
  const duration = input.durationSec;
  return {
    text,
    raw_text: rawText,
    language: languageName(input.language),
    model: input.model,
    duration_sec: duration,
    asr_ms: asrMs,
    diarize_ms: diarizeMs,
    total_ms: downloadMs + decodeMs + Math.max(asrMs, diarizeMs) + postMs,
    rtf: duration > 0 && Number.isFinite(duration) ? asrMs / 1000 / duration : 0,
    segments: segments.map((seg) => {
      const speaker = speakerOf(seg);
      const name = speaker === null ? undefined : names.get(speaker);
      return {
        start: seg.start,
        end: seg.end,
        start_fmt: formatTimestamp(seg.start),
        end_fmt: formatTimestamp(seg.end),
        text: seg.text,
        speaker,
        ...(name && { speaker_name: name }),
      };
    }),
    segment_count: segments.length,
    has_timestamps: segments.length > 0,
    speaker_turns: turns
      ? turns.map((t) => ({
          start: t.start,
          end: t.end,
          speaker: t.speaker,
          ...(t.speaker_name && { speaker_name: t.speaker_name }),
        }))
      : null,
    speakers_pending: false,
    translation: input.translation ?? null,
    audio_url: null,
  };
}
