import type { z } from "@hono/zod-openapi";
import { languageName } from "../../protocol/languages.ts";
import { quoted } from "../../protocol/quoted.ts";
import {
  type Chunking,
  SERVER_VAD_DEFAULTS,
  type SpeechTask,
  type TranscribeParams,
} from "../../protocol/transcribe-params.ts";
import { ApiError, validationError } from "../errors.ts";
import { type ResolvedTranscribeParams, resolveTranscribeParams } from "../ingest/transcribe-params.ts";
import {
  GRANULARITIES,
  type Granularity,
  RESPONSE_FORMATS,
  type ResponseFormat,
  ServerVadChunking,
  TRANSLATION_FORMATS,
  TranscriptionFormFields,
  TranslationFormFields,
} from "../schemas/openai.ts";
import { MAX_CONTEXT_CHARS } from "../schemas/transcribe.ts";
import { toValidationIssues } from "../validation.ts";
import { OpenAIError } from "./errors.ts";
import { type FormFields, FormValueError, list, objectValue, single } from "./form-values.ts";
import { parseKnownSpeakers, type ReferenceClip } from "./known-speakers.ts";

/** A checked compatible-API request; `params` lack only the uploaded object's key. */
export interface SyncRequest {
  format: ResponseFormat;
  granularities: Granularity[];
  /** `stream=true`: the transcript as server-sent events while it is decoded (transcript-stream.ts). */
  stream: boolean;
  params: Omit<TranscribeParams, "object_key" | "file_url" | "known_speakers">;
  /** Known speakers' reference clips, decoded; stored beside the upload before the task is made. */
  references: ReferenceClip[];
  /** The Voxedge extension `known_speakers` (enrolled names or `all`), resolved against the key's voices. */
  enrolledSpeakers: string | undefined;
}

/** The formats whose content streams as OpenAI's transcript events (the others are documents). */
const STREAMED_FORMATS: readonly ResponseFormat[] = ["json", "text", "diarized_json"];

const SINGLE_FIELDS = [
  "model",
  "language",
  "prompt",
  "response_format",
  "temperature",
  "stream",
  "target_language",
  "known_speakers",
] as const;
const LIST_FIELDS = [
  "include",
  "known_speaker_names",
  "known_speaker_references",
  "keywords",
  "languages",
] as const;

/**
 * Form values as the schema reads them, from every encoding the official SDKs produce
 * (form-values.ts): one value per plain field, arrays from `key[]` or a repeated `key`, the
 * granularities also comma-separated, and for a transcription `chunking_strategy` from
 * `chunking_strategy[prop]` or JSON (a translation's form has no such field: it is not read).
 *
 * @example formInput(new Map([["timestamp_granularities[]", ["word", "segment"]]])).timestamp_granularities // ["word", "segment"]
 */
export function formInput(fields: FormFields, task: SpeechTask = "transcribe"): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const name of SINGLE_FIELDS) {
    const value = single(fields, name);
    if (value !== undefined) input[name] = value;
  }
  for (const name of LIST_FIELDS) input[name] = list(fields, name);
  input.timestamp_granularities = list(fields, "timestamp_granularities")
    .flatMap((value) => value.split(","))
    .map((value) => value.trim())
    .filter(Boolean);
  const chunking = task === "transcribe" ? objectValue(fields, "chunking_strategy") : undefined;
  if (chunking !== undefined) input.chunking_strategy = chunking;
  return input;
}

/**
 * Checks the text fields of a compatible form: malformed values (a non-numeric temperature, an
 * over-long prompt) are a 422; an unsupported value or combination (response_format, granularity,
 * language, chunking_strategy, include, known speakers, stream with a format that is a document, a
 * translation's target_language that is not a language code) is a 400 naming the field, as OpenAI
 * answers; known speakers' clips come back decoded (known-speakers.ts). `model` and `temperature` are
 * accepted and ignored.
 *
 * @example parseSyncRequest(env, fields, "transcribe").params // { model_id, language: "en", context, task, ... }
 */
export function parseSyncRequest(env: Env, fields: FormFields, task: SpeechTask): SyncRequest {
  const input = readInput(fields, task);
  if (task === "transcribe") checkChunking(input.chunking_strategy);
  const transcription = task === "transcribe" ? parseForm(TranscriptionFormFields, input) : null;
  const form = transcription ?? parseForm(TranslationFormFields, input);
  const format = responseFormat(form.response_format, task);
  const granularities = granularityList(form.timestamp_granularities);
  if (transcription) checkTranscriptionOptions(transcription, format, granularities);
  // Translations have no language field: the source language is detected.
  const hints = transcription ? languageHints(transcription) : { language: null, detectAmong: [] };
  const target = "target_language" in form ? targetLanguage(form.target_language) : "en";
  const context = transcription ? promptWithKeywords(transcription) : form.prompt;
  let base: ResolvedTranscribeParams;
  try {
    base = resolveTranscribeParams(env, { language: hints.language, context });
  } catch (error) {
    if (error instanceof ApiError && error.code === "bad_request") {
      throw new OpenAIError("bad_request", error.message, {
        param: transcription?.languages.length ? "languages" : "language",
      });
    }
    throw error;
  }
  const stream = transcription?.stream === "true";
  const references = transcription
    ? parseKnownSpeakers(transcription.known_speaker_names, transcription.known_speaker_references, format)
    : [];
  const enrolledSpeakers = transcription?.known_speakers?.trim() || undefined;
  if (enrolledSpeakers && format !== "diarized_json") {
    throw new OpenAIError(
      "bad_request",
      `known_speakers needs response_format diarized_json (got ${format})`,
      { param: "known_speakers", openaiCode: "unsupported_value" },
    );
  }
  return {
    format,
    granularities,
    stream,
    references,
    enrolledSpeakers,
    params: {
      ...base,
      task,
      response_format: format,
      word_timestamps: format === "verbose_json" && granularities.includes("word"),
      ...(hints.detectAmong.length > 1 && { detect_languages: hints.detectAmong }),
      ...(transcription?.include.includes("logprobs") && { logprobs: true }),
      ...(stream && { stream_partials: true }),
      chunking: chunkingOf(transcription?.chunking_strategy),
      // English is whisper's own translation: the params stay as they always were
      ...(target !== "en" && { target_language: target }),
    },
  };
}

/**
 * What the node leaves out before decoding, as OpenAI defines `chunking_strategy`: unset is one block
 * (every sample decoded; a translation's form has no such field), `auto` the node's own VAD settings,
 * and a `server_vad` object its values with OpenAI's defaults for the ones omitted.
 *
 * @example chunkingOf(undefined) // "none"
 * @example chunkingOf({ type: "server_vad", silence_duration_ms: 500 }) // { ..., threshold: 0.5, prefix_padding_ms: 300 }
 */
function chunkingOf(strategy: TranscriptionFormFields["chunking_strategy"]): Chunking {
  if (strategy === undefined) return "none";
  if (strategy === "auto") return "auto";
  return { ...SERVER_VAD_DEFAULTS, ...strategy };
}

function parseForm<T extends z.ZodType>(schema: T, input: Record<string, unknown>): z.output<T> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw validationError(toValidationIssues(parsed.error, "form", input));
  return parsed.data;
}

function readInput(fields: FormFields, task: SpeechTask): Record<string, unknown> {
  try {
    return formInput(fields, task);
  } catch (error) {
    if (error instanceof FormValueError) throw unsupported(error.field, error.message, "invalid_value");
    throw error;
  }
}

/** A 400 naming `param`, as OpenAI answers an unsupported value or combination. */
function unsupported(param: string, message: string, openaiCode = "unsupported_value"): OpenAIError {
  return new OpenAIError("bad_request", message, { param, openaiCode });
}

/**
 * chunking_strategy is checked first, so a bad one is OpenAI's 400 naming it, not a 422; an object
 * is checked as server_vad so the message names the property at fault.
 */
function checkChunking(value: unknown): void {
  if (value === undefined || value === "auto") return;
  const advice =
    'send "auto" or {"type":"server_vad"} with threshold 0..1 and whole-millisecond prefix_padding_ms and silence_duration_ms';
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw unsupported(
      "chunking_strategy",
      `chunking_strategy ${JSON.stringify(value)} is not supported: ${advice}`,
    );
  }
  const parsed = ServerVadChunking.safeParse(value);
  if (parsed.success) return;
  const issues = parsed.error.issues.map((issue) =>
    issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message,
  );
  throw unsupported(
    "chunking_strategy",
    `chunking_strategy is invalid (${issues.join("; ")}): ${advice}`,
    "invalid_value",
  );
}

/** The combinations OpenAI refuses, and the options Voxedge cannot honour, each naming its field. */
function checkTranscriptionOptions(
  form: TranscriptionFormFields,
  format: ResponseFormat,
  granularities: readonly Granularity[],
): void {
  if (granularities.length > 0 && format !== "verbose_json") {
    throw unsupported(
      "timestamp_granularities",
      `timestamp_granularities needs response_format verbose_json (got ${format}): ` +
        "send response_format=verbose_json or leave timestamp_granularities out",
    );
  }
  if (format === "diarized_json" && form.prompt !== "") {
    throw unsupported(
      "prompt",
      "prompt is not supported with response_format diarized_json: leave prompt out, or ask for json or verbose_json",
    );
  }
  const unknown = form.include.filter((value) => value !== "logprobs");
  if (unknown.length > 0) {
    throw unsupported(
      "include",
      `include: ${unknown.map(quoted).join(", ")} is not supported: the one value is "logprobs"`,
    );
  }
  if (form.include.includes("logprobs") && format !== "json") {
    throw unsupported(
      "include",
      `include[]=logprobs is only available with response_format json (got ${format}): ask for json, or leave include out`,
    );
  }
  checkKeywords(form.keywords, form.prompt);
  if (form.stream === "true" && !STREAMED_FORMATS.includes(format)) {
    throw unsupported(
      "stream",
      `stream=true gives the transcript as events, as json, text or diarized_json do: response_format ${format} ` +
        "cannot be streamed; ask for one of those, or leave stream out",
    );
  }
}

/**
 * `language` and `languages[]` as one choice: a single entry of `languages` is the language; several
 * restrict detection to them (each must be a language code); both fields together are a 400, as
 * OpenAI answers.
 */
function languageHints(form: TranscriptionFormFields): { language: string | null; detectAmong: string[] } {
  if (form.languages.length === 0) return { language: form.language ?? null, detectAmong: [] };
  if (form.language !== undefined) {
    throw unsupported(
      "languages",
      "language and languages cannot both be set: send one language as `language`, or the possible ones as `languages[]`",
      "invalid_value",
    );
  }
  const codes = [...new Set(form.languages.map((value) => value.trim().toLowerCase()))];
  for (const code of codes) {
    if (!languageName(code)) {
      throw unsupported(
        "languages",
        `languages: ${quoted(code)} is not a language code: send ISO 639-1 codes such as "en" and "vi"`,
        "invalid_value",
      );
    }
  }
  return codes.length === 1
    ? { language: codes[0] ?? null, detectAmong: [] }
    : { language: null, detectAmong: codes };
}

/**
 * `keywords[]` as OpenAI takes them: each a single line without `<` or `>`, not empty. They bias
 * decoding by joining the prompt (whisper's only lever for it), so prompt and keywords together stay
 * within the prompt's limit.
 */
function checkKeywords(keywords: readonly string[], prompt: string): void {
  for (const keyword of keywords) {
    if (!keyword.trim() || /[\r\n<>]/.test(keyword)) {
      throw unsupported(
        "keywords",
        `keywords: ${JSON.stringify(keyword)} is not allowed: each keyword is one non-empty line without < or >`,
        "invalid_value",
      );
    }
  }
  if (promptWithKeywordsText(prompt, keywords).length > MAX_CONTEXT_CHARS) {
    throw unsupported(
      "keywords",
      `prompt and keywords together are over ${MAX_CONTEXT_CHARS} characters: send fewer or shorter keywords`,
      "invalid_value",
    );
  }
}

function promptWithKeywords(form: TranscriptionFormFields): string {
  return promptWithKeywordsText(form.prompt, form.keywords);
}

function promptWithKeywordsText(prompt: string, keywords: readonly string[]): string {
  const terms = keywords.map((keyword) => keyword.trim()).join(", ");
  return [prompt.trim(), terms].filter(Boolean).join(" ");
}

/** A translation's target: a language code whisper knows (ISO 639-1), any case; else a 400 naming it. */
function targetLanguage(value: string): string {
  const code = value.trim().toLowerCase();
  if (languageName(code)) return code;
  throw unsupported(
    "target_language",
    `target_language ${quoted(value)} is not a language code: send an ISO 639-1 code such as "en" (the default), "es" or "vi"`,
    "invalid_value",
  );
}

function responseFormat(value: string, task: SpeechTask): ResponseFormat {
  const formats: readonly ResponseFormat[] = task === "transcribe" ? RESPONSE_FORMATS : TRANSLATION_FORMATS;
  const format = formats.find((known) => known === value);
  if (!format) {
    throw unsupported(
      "response_format",
      `response_format ${quoted(value)} is not supported: use one of ${formats.join(", ")}`,
    );
  }
  return format;
}

function granularityList(values: readonly string[]): Granularity[] {
  const out: Granularity[] = [];
  for (const value of values) {
    const known = GRANULARITIES.find((g) => g === value);
    if (!known) {
      throw unsupported(
        "timestamp_granularities",
        `timestamp_granularities: ${quoted(value)} is not one of ${GRANULARITIES.join(", ")}`,
      );
    }
    if (!out.includes(known)) out.push(known);
  }
  return out;
}
