import { normalizeLanguage } from "../../protocol/languages.ts";
import { type SubtitleOptions, toSrt, toVtt } from "../../protocol/subtitles.ts";
import type { SpeechTask } from "../../protocol/transcribe-params.ts";
import type { TranscriptionResult } from "../../protocol/transcription.ts";
import {
  alignWords,
  type TokenLogprob,
  type TranscriptionDetail,
} from "../../protocol/transcription-detail.ts";
import type {
  OpenAIDiarizedSegment,
  OpenAIDurationUsage,
  OpenAISegment,
  OpenAITranscription,
  OpenAITranscriptionDiarized,
  OpenAITranscriptionVerbose,
  OpenAIWord,
  ResponseFormat,
} from "../schemas/openai.ts";

/**
 * A finished TranscriptionResult in OpenAI's response formats, byte for byte as OpenAI writes them:
 * json `{"text", "usage"}`, verbose_json, diarized_json, text (with its trailing newline), srt and vtt
 * (the shared writer in protocol/subtitles.ts, in its `openai` dialect). Transcriptions carry
 * `usage` in the JSON formats; translations do not (OpenAI's Translation has none). Pure functions.
 */

export interface RenderOptions {
  task: SpeechTask;
  /** verbose_json: add top-level `words` (the `word` granularity). */
  words: boolean;
  /** json: add the detail's `logprobs` (`include[]=logprobs`). */
  logprobs?: boolean;
  /** json: the language was detected (no `language` asked), so `languages` names it. */
  detected?: boolean;
}

/** What `json` adds to the text and usage when asked. */
export interface JsonExtras {
  logprobs?: readonly TokenLogprob[] | null;
  detected?: boolean;
}

export interface RenderedBody {
  body: string;
  contentType: string;
}

/** OpenAI's srt has no speaker marks; its vtt names a diarized segment's label as the voice. */
const OPENAI_SRT: SubtitleOptions = { speakerName: null, dialect: "openai" };
const OPENAI_VTT: SubtitleOptions = { speakerName: (label) => label, dialect: "openai" };

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
      return {
        body: JSON.stringify(
          toJson(result, options.task, {
            logprobs: options.logprobs ? (detail?.logprobs ?? []) : null,
            detected: options.detected ?? false,
          }),
        ),
        contentType: JSON_TYPE,
      };
    case "diarized_json":
      return { body: JSON.stringify(toDiarizedJson(result)), contentType: JSON_TYPE };
    case "verbose_json":
      return { body: JSON.stringify(toVerboseJson(result, detail, options)), contentType: JSON_TYPE };
    case "text":
      return { body: toText(result), contentType: TEXT_TYPE };
    case "srt":
      return { body: toSrt(result.segments, OPENAI_SRT), contentType: TEXT_TYPE };
    case "vtt":
      return { body: toVtt(result.segments, OPENAI_VTT), contentType: TEXT_TYPE };
  }
}

/**
 * `json`: the text, and for a transcription its usage, the detected language (`languages`) when
 * detection ran, and the tokens' `logprobs` when asked.
 */
export function toJson(
  result: TranscriptionResult,
  task: SpeechTask,
  extras: JsonExtras = {},
): OpenAITranscription {
  if (task !== "transcribe") return { text: result.text };
  return {
    text: result.text,
    ...(extras.logprobs && { logprobs: [...extras.logprobs] }),
    usage: durationUsage(result),
    ...(extras.detected && { languages: [{ code: languageCode(result.language) }] }),
  };
}

/**
 * A result's language (a name, as the spec shows it) as the ISO 639-1 code OpenAI's `languages` gives.
 *
 * @example languageCode("Vietnamese") // "vi"
 */
export function languageCode(language: string): string {
  const choice = normalizeLanguage(language);
  return choice.kind === "language" ? choice.code : language;
}

/**
 * OpenAI's usage of a duration-billed model: the audio's seconds, rounded up to a whole second.
 *
 * @example durationUsage({ ...result, duration_sec: 4.2 }) // { type: "duration", seconds: 5 }
 */
export function durationUsage(result: TranscriptionResult): OpenAIDurationUsage {
  return { type: "duration", seconds: Math.ceil(result.duration_sec) };
}

/**
 * `diarized_json`: OpenAI's TranscriptionDiarized. Segment ids are `seg_0`, `seg_1`, …; texts are
 * trimmed; speakers are named by {@link speakerLetters}, an enrolled voice by its `speaker_name`.
 *
 * @example toDiarizedJson(result).segments[0] // { type: "transcript.text.segment", id: "seg_0", start: 0, end: 2.5, text: "Hello world.", speaker: "A" }
 */
export function toDiarizedJson(result: TranscriptionResult): OpenAITranscriptionDiarized {
  const speakers = speakerLetters(result.segments.map((segment) => segment.speaker_name ?? segment.speaker));
  const segments = result.segments.map(
    (segment, index): OpenAIDiarizedSegment => ({
      type: "transcript.text.segment",
      id: `seg_${index}`,
      start: ms(segment.start),
      end: ms(segment.end),
      text: segment.text.trim(),
      speaker: speakers[index] ?? "A",
    }),
  );
  return {
    task: "transcribe",
    duration: ms(result.duration_sec),
    text: result.text,
    segments,
    usage: durationUsage(result),
  };
}

/** The diarizer's anonymous labels; any other label is a known speaker's name (known-speakers.ts). */
const ANONYMOUS_LABEL = /^SPEAKER_\d+$/;

/**
 * OpenAI's speaker names for the diarizer's labels: `A`, `B`, … `Z`, `AA`, … in order of first
 * appearance, skipping any letter a known speaker is called; a known speaker's name (the node put it
 * in place of the label) stays as it is. A segment the diarizer left without a speaker (none of its
 * turns overlap it, or the node runs without diarization) keeps the speaker before it; before any, the
 * first letter.
 *
 * @example speakerLetters(["SPEAKER_01", null, "SPEAKER_00", "SPEAKER_01"]) // ["A", "A", "B", "A"]
 * @example speakerLetters(["agent", "SPEAKER_01"]) // ["agent", "A"]
 */
export function speakerLetters(labels: readonly (string | null)[]): string[] {
  const names = new Set(
    labels.filter((label): label is string => label !== null && !ANONYMOUS_LABEL.test(label)),
  );
  const letters = new Map<string, string>();
  let next = 0;
  const nextLetter = () => {
    while (names.has(letterName(next))) next++;
    return letterName(next++);
  };
  let current = letterName(0);
  for (let first = 0; names.has(current); ) current = letterName(++first);
  return labels.map((label) => {
    if (label === null) return current;
    let speaker = names.has(label) ? label : letters.get(label);
    if (speaker === undefined) {
      speaker = nextLetter();
      letters.set(label, speaker);
    }
    current = speaker;
    return speaker;
  });
}

/** 0 → A, 25 → Z, 26 → AA: spreadsheet column names. */
function letterName(index: number): string {
  let name = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) {
    name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  }
  return name;
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
  if (options.task === "transcribe") verbose.usage = durationUsage(result);
  return verbose;
}

/** The node's aligned words, or (without detail) each segment's words spread over its span. */
function wordsOf(result: TranscriptionResult, detail: TranscriptionDetail | null): OpenAIWord[] {
  const words = detail?.words ?? result.segments.flatMap((segment) => alignWords(segment.text, [], segment));
  return words.map((word) => ({ word: word.word, start: ms(word.start), end: ms(word.end) }));
}

const NO_SPACE_START =
  /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/** whisper writes a segment with the space before its first word; scripts without spaces get none. */
function withLeadingSpace(text: string): string {
  const trimmed = text.trim();
  return trimmed === "" || NO_SPACE_START.test(trimmed) ? trimmed : ` ${trimmed}`;
}

const ms = (sec: number) => Math.round(sec * 1000) / 1000;
