/**
 * LibreTranslate backend (libretranslate.com API, self-hostable):
 * `POST {url}/translate {q, source, target, format: "text", api_key?}` → `{translatedText}`;
 * errors come as `{error}` with a 4xx/5xx status.
 */
import { z } from "zod";
import { translateInChunks } from "./chunk.ts";
import { postJson } from "./http.ts";
import { assertPair, type TranslateLanguage, TranslationError, type Translator } from "./translator.ts";

export interface LibreTranslateOptions {
  /** Server base URL, e.g. http://127.0.0.1:5000 (a trailing slash is fine). */
  url: string;
  apiKey?: string | undefined;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
  /** Longest request text (default 2000; keep it under the server's --char-limit). */
  maxChunkChars?: number;
}

const LibreResponse = z.object({ translatedText: z.string() });

const BACKEND = "libretranslate";

/**
 * A {@link Translator} over a LibreTranslate server. Its `model` is "libretranslate".
 *
 * @example
 * const mt = new LibreTranslateTranslator({ url: "http://127.0.0.1:5000" });
 * await mt.translate("Xin chào các bạn.", "vi", "en"); // "Hello everyone."
 */
export class LibreTranslateTranslator implements Translator {
  readonly model = BACKEND;
  readonly #endpoint: string;
  readonly #apiKey: string | undefined;
  readonly #timeoutMs: number;
  readonly #maxChunkChars: number;

  constructor(options: LibreTranslateOptions) {
    this.#endpoint = `${options.url.replace(/\/+$/, "")}/translate`;
    this.#apiKey = options.apiKey;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#maxChunkChars = options.maxChunkChars ?? 2000;
  }

  async translate(
    text: string,
    from: TranslateLanguage,
    to: TranslateLanguage,
    signal?: AbortSignal,
  ): Promise<string> {
    assertPair(BACKEND, from, to);
    if (from === to) return text;
    return translateInChunks(text, this.#maxChunkChars, async (q) => {
      const body = {
        q,
        source: from,
        target: to,
        format: "text",
        ...(this.#apiKey && { api_key: this.#apiKey }),
      };
      const json = await postJson(this.#endpoint, body, {
        backend: BACKEND,
        timeoutMs: this.#timeoutMs,
        signal,
      });
      const parsed = LibreResponse.safeParse(json);
      if (!parsed.success) {
        throw new TranslationError(
          BACKEND,
          "bad_response",
          `no translatedText in ${JSON.stringify(json).slice(0, 100)}`,
        );
      }
      return parsed.data.translatedText;
    });
  }
}
