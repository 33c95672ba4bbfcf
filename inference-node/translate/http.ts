/**
 * The HTTP calls every translation backend makes (GET, or POST of JSON or a form), bounded by a timeout and the
 * caller's signal, with failures mapped to {@link TranslationError} codes.
 */
import { TranslationError } from "./translator.ts";

export interface JsonRequestOptions {
  /** Backend name for error messages. */
  backend: string;
  headers?: Record<string, string>;
  /** Per-request limit. */
  timeoutMs: number;
  /** The caller's cancellation. */
  signal?: AbortSignal | undefined;
}

/**
 * The error text an API put in its body: `{error: "..."}` (LibreTranslate), `{error: {message}}`
 * (OpenAI), `{detail}` (our Worker), `{message, explanation}` (APy), or the text.
 */
function errorDetail(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === "object" && "error" in parsed) {
      const error = (parsed as { error: unknown }).error;
      if (typeof error === "string") return error;
      if (error && typeof error === "object" && "message" in error && typeof error.message === "string") {
        return error.message;
      }
    }
    if (parsed && typeof parsed === "object") {
      const { detail, explanation } = parsed as { detail?: unknown; explanation?: unknown };
      if (typeof detail === "string") return detail;
      if (typeof explanation === "string") return explanation;
    }
  } catch {
    // not JSON: fall through to the raw text
  }
  return body.trim().slice(0, 300) || "(empty body)";
}

/**
 * POSTs `body` as JSON and returns the parsed JSON response.
 *
 * @example
 * const json = await postJson("http://127.0.0.1:5000/translate", { q: "xin chào" }, { backend: "libretranslate", timeoutMs: 30_000 });
 */
export function postJson(url: string, body: unknown, options: JsonRequestOptions): Promise<unknown> {
  return requestJson(url, { method: "POST", body: JSON.stringify(body), type: "application/json" }, options);
}

/**
 * POSTs `fields` as an HTML form (servers that read form arguments, like APy) and returns the parsed
 * JSON response.
 *
 * @example
 * await postForm("http://127.0.0.1:2737/translate", { langpair: "eng|spa", q: "Hello" }, { backend: "apertium", timeoutMs: 5_000 });
 */
export function postForm(
  url: string,
  fields: Record<string, string>,
  options: JsonRequestOptions,
): Promise<unknown> {
  const body = new URLSearchParams(fields).toString();
  return requestJson(url, { method: "POST", body, type: "application/x-www-form-urlencoded" }, options);
}

/**
 * GETs `url` and returns the parsed JSON response (language lists, APy's translate endpoint).
 *
 * @example
 * const json = await getJson("http://127.0.0.1:2737/listPairs", { backend: "apertium", timeoutMs: 5_000 });
 */
export function getJson(url: string, options: JsonRequestOptions): Promise<unknown> {
  return requestJson(url, { method: "GET" }, options);
}

async function requestJson(
  url: string,
  init: { method: "GET" | "POST"; body?: string; type?: string },
  options: JsonRequestOptions,
): Promise<unknown> {
  const { backend, timeoutMs, signal } = options;
  if (signal?.aborted) throw new TranslationError(backend, "aborted", "aborted", { cause: signal.reason });
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const failed = (err: unknown): TranslationError => {
    if (err instanceof TranslationError) return err;
    if (signal?.aborted) return new TranslationError(backend, "aborted", "aborted", { cause: signal.reason });
    if (timeout.aborted)
      return new TranslationError(backend, "timeout", `timed out after ${timeoutMs} ms`, { cause: err });
    const cause =
      err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    const where = url.split("?")[0];
    return new TranslationError(backend, "network", `request to ${where} failed: ${cause}`, { cause: err });
  };
  try {
    const headers: Record<string, string> = { accept: "application/json", ...options.headers };
    if (init.type) headers["content-type"] = init.type;
    const response = await fetch(url, {
      method: init.method,
      body: init.body ?? null,
      headers,
      signal: combined,
    });
    const text = await response.text();
    if (!response.ok) {
      throw new TranslationError(backend, "http", `HTTP ${response.status}: ${errorDetail(text)}`, {
        status: response.status,
      });
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new TranslationError(backend, "bad_response", `response is not JSON: ${text.slice(0, 100)}`, {
        cause: err,
      });
    }
  } catch (err) {
    throw failed(err);
  }
}
