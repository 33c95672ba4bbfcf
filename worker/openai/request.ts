import type { SpeechTask, TranscribeParams } from "../../protocol/transcribe-params.ts";
import { ApiError, validationError } from "../errors.ts";
import { type ResolvedTranscribeParams, resolveTranscribeParams } from "../ingest/transcribe-params.ts";
import {
  GRANULARITIES,
  type Granularity,
  RESPONSE_FORMATS,
  type ResponseFormat,
  TranscriptionFormFields,
  TranslationFormFields,
} from "../schemas/openai.ts";
import { toValidationIssues } from "../validation.ts";
import { OpenAIError } from "./errors.ts";

/** A checked compatible-API request; `params` lack only the uploaded object's key. */
export interface SyncRequest {
  format: ResponseFormat;
  granularities: Granularity[];
  params: Omit<TranscribeParams, "object_key" | "file_url">;
}

const SINGLE_FIELDS = ["model", "language", "prompt", "response_format", "temperature"] as const;
const GRANULARITY_FIELDS = ["timestamp_granularities[]", "timestamp_granularities"];

/**
 * Form values as the schema reads them: one value per plain field (the first; an empty one counts as
 * not sent), and the granularities from both spellings, repeated or comma-separated.
 *
 * @example formInput(new Map([["timestamp_granularities[]", ["word", "segment"]]])).timestamp_granularities // ["word", "segment"]
 */
export function formInput(fields: ReadonlyMap<string, readonly string[]>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const name of SINGLE_FIELDS) {
    const value = fields.get(name)?.[0];
    if (value !== undefined && value !== "") input[name] = value;
  }
  input.timestamp_granularities = GRANULARITY_FIELDS.flatMap((name) => fields.get(name) ?? [])
    .flatMap((value) => value.split(","))
    .map((value) => value.trim())
    .filter(Boolean);
  return input;
}

/**
 * Checks the text fields of a compatible form: malformed values (a non-numeric temperature, an
 * over-long prompt) are a 422; an unsupported response_format, granularity or language is a 400 naming
 * the field, as OpenAI answers. `model` and `temperature` are accepted and ignored.
 *
 * @example parseSyncRequest(env, fields, "transcribe").params // { model_id, language: "en", context, task, ... }
 */
export function parseSyncRequest(
  env: Env,
  fields: ReadonlyMap<string, readonly string[]>,
  task: SpeechTask,
): SyncRequest {
  const input = formInput(fields);
  const schema = task === "transcribe" ? TranscriptionFormFields : TranslationFormFields;
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw validationError(toValidationIssues(parsed.error, "form", input));
  const form = parsed.data;
  const format = responseFormat(form.response_format);
  const granularities = granularityList(form.timestamp_granularities);
  // Translations have no language field: the source language is detected.
  const language = (form as { language?: string }).language ?? null;
  let base: ResolvedTranscribeParams;
  try {
    base = resolveTranscribeParams(env, { language, context: form.prompt });
  } catch (error) {
    if (error instanceof ApiError && error.code === "bad_request") {
      throw new OpenAIError("bad_request", error.message, { param: "language" });
    }
    throw error;
  }
  return {
    format,
    granularities,
    params: {
      ...base,
      task,
      response_format: format,
      word_timestamps: format === "verbose_json" && granularities.includes("word"),
    },
  };
}

function responseFormat(value: string): ResponseFormat {
  const format = RESPONSE_FORMATS.find((known) => known === value);
  if (!format) {
    throw new OpenAIError(
      "bad_request",
      `response_format "${value}" is not supported: use one of ${RESPONSE_FORMATS.join(", ")}`,
      { param: "response_format", openaiCode: "unsupported_value" },
    );
  }
  return format;
}

function granularityList(values: readonly string[]): Granularity[] {
  const out: Granularity[] = [];
  for (const value of values) {
    const known = GRANULARITIES.find((g) => g === value);
    if (!known) {
      throw new OpenAIError(
        "bad_request",
        `timestamp_granularities: "${value}" is not one of ${GRANULARITIES.join(", ")}`,
        { param: "timestamp_granularities", openaiCode: "unsupported_value" },
      );
    }
    if (!out.includes(known)) out.push(known);
  }
  return out;
}
