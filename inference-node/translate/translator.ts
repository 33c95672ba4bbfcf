/**
 * Text translation between Vietnamese and English, behind one interface with interchangeable HTTP
 * backends (LibreTranslate, OpenAI-compatible chat). Whisper's own translate task covers speech → English
 * without any of this; these backends translate the cleaned transcript, in both directions.
 */

/** The languages text translation serves (the spec's VI<->EN). */
export type TranslateLanguage = "vi" | "en";

/** Display names, for prompts and messages. */
export const LANGUAGE_NAMES: Readonly<Record<TranslateLanguage, string>> = {
  vi: "Vietnamese",
  en: "English",
};

/**
 * A translation backend.
 *
 * Failure is thrown as a {@link TranslationError}, and it must never fail a transcription: the caller
 * catches it, logs it, and completes the task with `translation: null`.
 *
 * @example
 * const translator = createTranslator({ backend: "libretranslate", url: "http://127.0.0.1:5000" });
 * let translation: string | null = null;
 * try {
 *   translation = await translator.translate(text, "vi", "en", signal);
 * } catch (err) {
 *   log.warn({ err }, "translation failed; completing without it");
 * }
 */
export interface Translator {
  /** The translation model id /health reports as `mt_model` ("libretranslate", or the chat model id). */
  readonly model: string;
  /**
   * Translates `text`; resolves to "" for blank text and to `text` itself when `from` equals `to`,
   * without a request. Long text goes out in chunks at sentence boundaries and comes back joined.
   * `signal` cancels the whole translation; each request also has its own timeout.
   */
  translate(
    text: string,
    from: TranslateLanguage,
    to: TranslateLanguage,
    signal?: AbortSignal,
  ): Promise<string>;
}

/** Why a translation failed; `http` carries the status. */
export type TranslationErrorCode =
  | "http"
  | "timeout"
  | "aborted"
  | "network"
  | "bad_response"
  | "unsupported";

/**
 * A failed translation. The message names the backend and the cause, e.g.
 * `libretranslate: HTTP 400: en is not supported` or `openai: timed out after 30000 ms`.
 */
export class TranslationError extends Error {
  override readonly name = "TranslationError";
  readonly code: TranslationErrorCode;
  /** The backend that failed ("libretranslate", "openai"). */
  readonly backend: string;
  /** HTTP status, for code `http`. */
  readonly status: number | undefined;

  constructor(
    backend: string,
    code: TranslationErrorCode,
    detail: string,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(`${backend}: ${detail}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.backend = backend;
    this.code = code;
    this.status = options.status;
  }
}

/**
 * The language to translate a transcript into: English for Vietnamese, Vietnamese for English, null
 * for anything else (only VI<->EN is offered). Accepts region tags and any case.
 *
 * @example
 * translationTarget("vi"); // "en"
 * translationTarget("en-US"); // "vi"
 * translationTarget("ja"); // null
 */
export function translationTarget(languageCode: string): TranslateLanguage | null {
  const base = languageCode.trim().toLowerCase().split(/[-_]/)[0];
  if (base === "vi" || base === "vietnamese") return "en";
  if (base === "en" || base === "english") return "vi";
  return null;
}

/** Checks the pair at run time (callers from plain JS or untyped config). */
export function assertPair(backend: string, from: string, to: string): void {
  for (const lang of [from, to]) {
    if (lang !== "vi" && lang !== "en") {
      throw new TranslationError(backend, "unsupported", `unsupported language "${lang}" (vi and en only)`);
    }
  }
}
