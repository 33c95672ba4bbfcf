/**
 * Text translation behind one interface with interchangeable backends (Apertium APy, LibreTranslate,
 * OpenAI-compatible chat, Cloudflare Workers AI through the Worker). Rooms, single-device streams and
 * the transcription jobs' VI↔EN translation all use it. Languages are the whisper codes the API uses
 * (`en`, `es`, `vi`...); each backend maps them to its own.
 */
import { languageName } from "../../protocol/languages.ts";

/** A direction a backend translates: [from, to], whisper language codes. */
export type LanguagePair = readonly [from: string, to: string];

/**
 * A translation backend.
 *
 * Failure is thrown as a {@link TranslationError}, and it must never fail a transcription or a room:
 * the caller catches it and carries on with the original text (or `translation: null` for a task).
 *
 * @example
 * const translator = createTranslator({ backend: "apertium", url: "http://127.0.0.1:2737" });
 * const pairs = await translator.pairs(); // [["en", "es"], ["es", "en"]]
 * let translation = text;
 * try {
 *   translation = await translator.translate(text, "en", "es", signal);
 * } catch (err) {
 *   log.warn({ err }, "translation failed; keeping the original");
 * }
 */
export interface Translator {
  /** The translation model id /health reports as `mt_model` ("apertium", "libretranslate", the chat model...). */
  readonly model: string;
  /**
   * The directions the backend can translate now, asked of the backend itself (a server's language
   * list, or the configured languages for backends that take any pair). Throws a TranslationError
   * when the backend cannot be reached.
   */
  pairs(signal?: AbortSignal): Promise<LanguagePair[]>;
  /**
   * Translates `text`; resolves to "" for blank text and to `text` itself when `from` equals `to`,
   * without a request. Long text goes out in chunks at sentence boundaries and comes back joined.
   * `signal` cancels the whole translation; each request also has its own timeout.
   */
  translate(text: string, from: string, to: string, signal?: AbortSignal): Promise<string>;
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
  /** The backend that failed ("apertium", "libretranslate", "openai", "workers-ai"). */
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

/** Throws `unsupported` unless both are language codes the API knows (whisper's table). */
export function assertLanguages(backend: string, from: string, to: string): void {
  for (const lang of [from, to]) {
    if (!languageName(lang)) {
      throw new TranslationError(backend, "unsupported", `unknown language code "${lang}"`);
    }
  }
}

/** Throws `unsupported` when `pairs` is known and does not hold from → to. */
export function assertOffered(
  backend: string,
  pairs: readonly LanguagePair[] | null,
  from: string,
  to: string,
): void {
  if (pairs && !pairs.some(([a, b]) => a === from && b === to)) {
    throw new TranslationError(backend, "unsupported", `${from} → ${to} is not offered by this backend`);
  }
}

/**
 * Every ordered pair of distinct languages in `languages` (backends that translate between any two).
 *
 * @example allPairs(["en", "vi"]); // [["en", "vi"], ["vi", "en"]]
 */
export function allPairs(languages: readonly string[]): LanguagePair[] {
  const unique = [...new Set(languages)];
  return unique.flatMap((from) => unique.filter((to) => to !== from).map((to) => [from, to] as const));
}
