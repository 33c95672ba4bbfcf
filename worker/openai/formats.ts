import type { SpeechTask } from "../../protocol/transcribe-params.ts";
import type { Segment, TranscriptionResult } from "../../protocol/transcription.ts";
import { alignWords, type TranscriptionDetail } from "../../protocol/transcription-detail.ts";
import type {
  OpenAISegment,
  OpenAITranscription,
  OpenAITranscriptionVerbose,
  OpenAIWord,
  ResponseFormat,
} from "../schemas/openai.ts";

/**
 * A finished TranscriptionResult in OpenAI's response formats, byte for byte as OpenAI writes them:
 * json `{"text"}`, verbose_json, text (with its trailing newline), srt and vtt. Pure functions.
 */

export interface RenderOptions {
  task: SpeechTask;
  /** verbose_json: add top-level `words` (the `word` granularity). */
  words: boolean;
}

export interface RenderedBody {
  body: string;
  contentType: string;
}

const JSON_TYPE = "application/json";
/** OpenAI answers text, srt and vtt as text/plain. */
const TEXT_TYPE = "text/plain; charset=utf-8";

/**
 * The response body of `format`. `detail` (the node's decoder figures) may be null: verbose_json then
 * shows zeros for the scores, no token ids, and words estimated from the segment text.
 *
 * @example renderTranscript("srt", result, null, { task: "transcribe", words: false }).body
 * // "1\n00:00:00,000 --> 00:00:01,500\nxin chào\n\n"
 */
export function renderTranscript(
  format: ResponseFormat,
  result: TranscriptionResult,
  detail: TranscriptionDetail | null,
  options: RenderOptions,
): RenderedBody {
  switch (format) {
    case "json":
      return { body: JSON.stringify(toJson(result)), contentType: JSON_TYPE };
    case "verbose_json":
      return { body: JSON.stringify(toVerboseJson(result, detail, options)), contentType: JSON_TYPE };
    case "text":
      return { body: toText(result), contentType: TEXT_TYPE };
    case "srt":
      return { body: toSrt(result.segments), contentType: TEXT_TYPE };
    case "vtt":
      return { body: toVtt(result.segments), contentType: TEXT_TYPE };
  }
}

/** `json`: the text alone. */
export function toJson(result: TranscriptionResult): OpenAITranscription {
  return { text: result.text };
}

/** `text`: the transcript and a newline, as OpenAI sends it. */
export function toText(result: TranscriptionResult): string {
  return `${result.text}\n`;
}

/**
 * `verbose_json`: OpenAI's TranscriptionVerbose. `language` is the full lower-case name ("english"),
 * segment texts keep whisper's leading space, times are rounded to the millisecond.
 *
 * @example toVerboseJson(result, null, { task: "transcribe", words: true }).words?.[0] // { word: "xin", start: 0, end: 0.643 }
 */
export function toVerboseJson(
  result: TranscriptionResult,
  detail: TranscriptionDetail | null,
  options: RenderOptions,
): OpenAITranscriptionVerbose {
  const segments = result.segments.map((segment, id): OpenAISegment => {
    const figures = detail?.segments[id];
    return {
      id,
      seek: figures?.seek ?? Math.floor(segment.start / 30) * 3000,
      start: ms(segment.start),
      end: ms(segment.end),
      text: withLeadingSpace(segment.text),
      tokens: figures?.tokens ?? [],
      temperature: figures?.temperature ?? 0,
      avg_logprob: figures?.avg_logprob ?? 0,
      compression_ratio: figures?.compression_ratio ?? 0,
      no_speech_prob: figures?.no_speech_prob ?? 0,
    };
  });
  const verbose: OpenAITranscriptionVerbose = {
    task: options.task,
    language: result.language.toLowerCase(),
    duration: ms(result.duration_sec),
    text: result.text,
    segments,
  };
  if (options.words) verbose.words = wordsOf(result, detail);
  return verbose;
}

/** The node's aligned words, or (without detail) each segment's words spread over its span. */
function wordsOf(result: TranscriptionResult, detail: TranscriptionDetail | null): OpenAIWord[] {
  const words = detail?.words ?? result.segments.flatMap((segment) => alignWords(segment.text, [], segment));
  return words.map((word) => ({ word: word.word, start: ms(word.start), end: ms(word.end) }));
}

/**
 * `srt`: cues numbered from 1, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, each followed by a blank line.
 *
 * @example toSrt([{ start: 0, end: 2.5, text: "Hi", ... }]) // "1\n00:00:00,000 --> 00:00:02,500\nHi\n\n"
 */
export function toSrt(segments: readonly Segment[]): string {
  return segments
    .map((s, i) => `${i + 1}\n${timecode(s.start, ",")} --> ${timecode(s.end, ",")}\n${s.text.trim()}\n\n`)
    .join("");
}

/**
 * `vtt`: the `WEBVTT` header, then `HH:MM:SS.mmm --> HH:MM:SS.mmm` cues; a diarized segment's text
 * carries a voice tag, `<v SPEAKER_00>`.
 *
 * @example toVtt([{ start: 0, end: 2.5, text: "Hi", speaker: "SPEAKER_00", ... }])
 * // "WEBVTT\n\n00:00:00.000 --> 00:00:02.500\n<v SPEAKER_00>Hi\n\n"
 */
export function toVtt(segments: readonly Segment[]): string {
  const cues = segments.map((s) => {
    const voice = s.speaker ? `<v ${s.speaker}>` : "";
    return `${timecode(s.start, ".")} --> ${timecode(s.end, ".")}\n${voice}${s.text.trim()}\n\n`;
  });
  return `WEBVTT\n\n${cues.join("")}`;
}

/**
 * `HH:MM:SS<sep>mmm`, rounded to the millisecond (the carry reaches the hours); negative and
 * non-finite times print as zero.
 *
 * @example timecode(3725.0419, ",") // "01:02:05,042"
 */
export function timecode(sec: number, separator: "," | "."): string {
  const total = Number.isFinite(sec) && sec > 0 ? Math.round(sec * 1000) : 0;
  const pad = (value: number, width = 2) => String(value).padStart(width, "0");
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor(total / 60_000) % 60;
  const seconds = Math.floor(total / 1000) % 60;
  return `${pad(hours)}:${pad(minutes)}:${pad(seconds)}${separator}${pad(total % 1000, 3)}`;
}

const NO_SPACE_START =
  /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/** whisper writes a segment with the space before its first word; scripts without spaces get none. */
function withLeadingSpace(text: string): string {
  const trimmed = text.trim();
  return trimmed === "" || NO_SPACE_START.test(trimmed) ? trimmed : ` ${trimmed}`;
}

const ms = (sec: number) => Math.round(sec * 1000) / 1000;
