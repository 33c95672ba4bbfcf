/**
 * The one HTTP call every translation backend makes: POST JSON, bounded by a timeout and the caller's
 * signal, with failures mapped to {@link TranslationError} codes.
 */
import { TranslationError } from "./translator.ts";

export interface PostJsonOptions {
  /** Backend name for error messages. */
  backend: string;
  headers?: Record<string, string>;
  /** Per-request limit. */
  timeoutMs: number;
  /** The caller's cancellation. */
  signal?: AbortSignal | undefined;
}

/** The error text an API put in its body: `{error: "..."}` (LibreTranslate), `{error: {message}}` (OpenAI), or the text. */
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
export async function postJson(url: string, body: unknown, options: PostJsonOptions): Promise<unknown> {
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
    return new TranslationError(backend, "network", `request to ${url} failed: ${cause}`, { cause: err });
  };
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...options.headers },
      body: JSON.stringify(body),
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
