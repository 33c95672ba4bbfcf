import { z } from "zod";
import { normalizeLanguage } from "../../protocol/languages.ts";
import { remoteGarbled, remoteStatusFailure, remoteUnreachable } from "./remote-failure.ts";
import type { RemoteAsk, RemoteAudio, RemoteTranscript } from "./remote-transcript.ts";

/** Where and how to call one OpenAI-compatible endpoint (from its registry entry). */
export interface OpenAiEndpoint {
  /** The full URL of `.../audio/transcriptions`. */
  url: string;
  /** The `model` form field. */
  model: string;
  /** Bearer key, or null for an endpoint without one (a private whisper-server). */
  apiKey: string | null;
  timeoutSec: number;
  /** The entry's `supports_timestamps`: ask for `verbose_json` (segments), else plain `json`. */
  timestamps: boolean;
}

/** The largest answer read from the endpoint: a verbose_json of hours of speech fits many times over. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/**
 * The part of `verbose_json` we read (OpenAI's, whisper-server's and Voxedge's own /v1 all give it);
 * a plain `json` answer (OpenAI's gpt-4o-transcribe family) is its `text` alone.
 */
const VerboseJson = z.object({
  text: z.string(),
  language: z.string().optional(),
  duration: z.coerce.number().optional(),
  segments: z
    .array(
      z.object({
        start: z.coerce.number(),
        end: z.coerce.number(),
        text: z.string(),
        no_speech_prob: z.number().optional(),
        avg_logprob: z.number().optional(),
      }),
    )
    .default([]),
});

/**
 * One multipart POST of the whole file with `response_format=verbose_json` (segments with times) when
 * the entry says it has timestamps, else `json` (text only: a model that answers nothing else works).
 * The caller's signal cancels the call (a cancelled task); the entry's timeout bounds it.
 *
 * @example await transcribeWithOpenAiEndpoint(endpoint, audio, { language: null, prompt: "", task: "transcribe" }, signal)
 */
export async function transcribeWithOpenAiEndpoint(
  endpoint: OpenAiEndpoint,
  audio: RemoteAudio,
  ask: RemoteAsk,
  signal: AbortSignal,
): Promise<RemoteTranscript> {
  const tier = new URL(endpoint.url).host;
  const form = new FormData();
  form.append("file", new Blob([audio.bytes], { type: audio.contentType }), audio.filename);
  form.append("model", endpoint.model);
  form.append("response_format", endpoint.timestamps ? "verbose_json" : "json");
  if (ask.language) form.append("language", ask.language);
  if (ask.prompt) form.append("prompt", ask.prompt);
  const url =
    ask.task === "translate" ? endpoint.url.replace(/transcriptions$/, "translations") : endpoint.url;
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      body: form,
      headers: endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {},
      // An endpoint is a fixed URL: a redirect is not followed (its answer reads as a failure status).
      redirect: "manual",
      signal: AbortSignal.any([signal, AbortSignal.timeout(endpoint.timeoutSec * 1000)]),
    });
  } catch (cause) {
    if (signal.aborted) throw cause;
    throw remoteUnreachable(tier, cause, endpoint.timeoutSec);
  }
  const body = await boundedText(response, tier);
  if (!response.ok) throw remoteStatusFailure(response.status, tier, errorDetail(body));
  let parsed: z.infer<typeof VerboseJson>;
  try {
    parsed = VerboseJson.parse(JSON.parse(body));
  } catch {
    throw remoteGarbled(tier, `sent a body that is not ${endpoint.timestamps ? "verbose_json" : "json"}`);
  }
  const language = normalizeLanguage(parsed.language);
  return {
    text: parsed.text,
    language: language.kind === "language" ? language.code : (ask.language ?? ""),
    durationSec: parsed.duration ?? null,
    segments: parsed.segments.map((s) => ({
      start: s.start,
      end: s.end,
      text: s.text,
      noSpeechProb: s.no_speech_prob,
      avgLogprob: s.avg_logprob,
    })),
    hasTimestamps: endpoint.timestamps && parsed.segments.length > 0,
  };
}

async function boundedText(response: Response, tier: string): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > MAX_ANSWER_BYTES) {
    await response.body?.cancel();
    throw remoteGarbled(tier, `sent an answer over ${MAX_ANSWER_BYTES} bytes`);
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.byteLength > MAX_ANSWER_BYTES)
    throw remoteGarbled(tier, `sent an answer over ${MAX_ANSWER_BYTES} bytes`);
  return new TextDecoder().decode(bytes);
}

/** The endpoint's own error text (OpenAI's envelope, whisper-server's `{error}`), for the log. */
function errorDetail(body: string): string {
  try {
    const json = JSON.parse(body) as { error?: string | { message?: string } };
    if (typeof json.error === "string") return json.error;
    if (json.error?.message) return json.error.message;
  } catch {
    // not JSON: the raw text below
  }
  return body.trim();
}
