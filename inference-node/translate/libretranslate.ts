/**
 * LibreTranslate backend (libretranslate.com API, self-hostable):
 * `GET {url}/languages` → `[{code, name, targets: [code...]}]`;
 * `POST {url}/translate {q, source, target, format: "text", api_key?}` → `{translatedText}`;
 * errors come as `{error}` with a 4xx/5xx status.
 */
import { z } from "zod";
import { normalizeLanguage } from "../../protocol/languages.ts";
import { translateInChunks } from "./chunk.ts";
import { getJson, postJson } from "./http.ts";
import {
  assertLanguages,
  assertOffered,
  type LanguagePair,
  TranslationError,
  type Translator,
} from "./translator.ts";

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
const LibreLanguages = z.array(z.object({ code: z.string(), targets: z.array(z.string()).default([]) }));

/** The whisper code of a LibreTranslate code (`zh-Hans` → `zh`), or null. */
function apiCode(code: string): string | null {
  const choice = normalizeLanguage(code);
  return choice.kind === "language" ? choice.code : null;
}

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
  readonly #base: string;
  /** What the server offers, and its own code for each of our codes, once its list was read. */
  #offered: { pairs: LanguagePair[]; codes: Map<string, string> } | null = null;

  constructor(options: LibreTranslateOptions) {
    this.#base = options.url.replace(/\/+$/, "");
    this.#endpoint = `${this.#base}/translate`;
    this.#apiKey = options.apiKey;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#maxChunkChars = options.maxChunkChars ?? 2000;
  }

  async pairs(signal?: AbortSignal): Promise<LanguagePair[]> {
    const json = await getJson(`${this.#base}/languages`, {
      backend: BACKEND,
      timeoutMs: this.#timeoutMs,
      signal,
    });
    const parsed = LibreLanguages.safeParse(json);
    if (!parsed.success) {
      throw new TranslationError(
        BACKEND,
        "bad_response",
        `no language list in ${JSON.stringify(json).slice(0, 100)}`,
      );
    }
    const codes = new Map<string, string>();
    for (const { code } of parsed.data) {
      const ours = apiCode(code);
      if (ours && !codes.has(ours)) codes.set(ours, code);
    }
    const pairs = new Map<string, LanguagePair>();
    for (const { code, targets } of parsed.data) {
      const from = apiCode(code);
      for (const target of targets) {
        const to = apiCode(target);
        if (from && to && from !== to) pairs.set(`${from}|${to}`, [from, to]);
      }
    }
    this.#offered = { pairs: [...pairs.values()], codes };
    return this.#offered.pairs;
  }

  async translate(text: string, from: string, to: string, signal?: AbortSignal): Promise<string> {
    assertLanguages(BACKEND, from, to);
    if (from === to) return text;
    assertOffered(BACKEND, this.#offered?.pairs ?? null, from, to);
    const codes = this.#offered?.codes;
    return translateInChunks(
      text,
      this.#maxChunkChars,
      async (q) => {
        const body = {
          q,
          source: codes?.get(from) ?? from,
          target: codes?.get(to) ?? to,
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
      },
      from,
    );
  }
}
