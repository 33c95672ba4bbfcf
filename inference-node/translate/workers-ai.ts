/**
 * Cloudflare Workers AI backend (`@cf/meta/m2m100-1.2b`), reached through the Worker's internal route
 * (protocol/translate.ts) with the node's own NODE_TOKEN: the model runs on the Worker's `AI` binding,
 * so a node needs no Cloudflare credentials. `GET` tells the languages (503 without the binding),
 * `POST {text, source_lang, target_lang}` → `{translated_text}`.
 */
import {
  INTERNAL_TRANSLATE_PATH,
  TranslateCapabilities,
  type TranslateRequest,
  TranslateResponse,
  WORKERS_AI_TRANSLATION_MODEL,
} from "../../protocol/translate.ts";
import { translateInChunks } from "./chunk.ts";
import { getJson, postJson } from "./http.ts";
import { DEFAULT_CHAT_LANGUAGES } from "./openai-chat.ts";
import {
  allPairs,
  assertLanguages,
  assertOffered,
  type LanguagePair,
  TranslationError,
  type Translator,
} from "./translator.ts";

export interface WorkersAiOptions {
  /** The Worker's base URL (the node's --worker-url). */
  url: string;
  /** The node's NODE_TOKEN. */
  token: string;
  timeoutMs?: number;
  /** Languages offered, every direction between those m2m100 has (default: the chat backend's list). */
  languages?: readonly string[];
  /** Longest text per request (default 2000; the route takes 5000). */
  maxChunkChars?: number;
}

const BACKEND = "workers-ai";

/**
 * A {@link Translator} over Workers AI m2m100 via the Worker.
 *
 * @example
 * const mt = new WorkersAiTranslator({ url: "https://api.example.com", token: process.env.NODE_TOKEN! });
 * await mt.translate("Good morning", "en", "fr"); // "Bonjour"
 */
export class WorkersAiTranslator implements Translator {
  readonly model = WORKERS_AI_TRANSLATION_MODEL;
  readonly #endpoint: string;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  readonly #languages: readonly string[];
  readonly #maxChunkChars: number;
  #pairs: LanguagePair[] | null = null;

  constructor(options: WorkersAiOptions) {
    this.#endpoint = `${options.url.replace(/\/+$/, "")}${INTERNAL_TRANSLATE_PATH}`;
    this.#headers = { authorization: `Bearer ${options.token}` };
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#languages = options.languages ?? DEFAULT_CHAT_LANGUAGES;
    this.#maxChunkChars = options.maxChunkChars ?? 2000;
  }

  /** The configured languages the Worker's model has; throws (HTTP 503) when the Worker has no AI binding. */
  async pairs(signal?: AbortSignal): Promise<LanguagePair[]> {
    const json = await getJson(this.#endpoint, this.#request(signal));
    const parsed = TranslateCapabilities.safeParse(json);
    if (!parsed.success) {
      throw new TranslationError(
        BACKEND,
        "bad_response",
        `no language list in ${JSON.stringify(json).slice(0, 100)}`,
      );
    }
    const offered = new Set(parsed.data.languages);
    this.#pairs = allPairs(this.#languages.filter((code) => offered.has(code)));
    return this.#pairs;
  }

  async translate(text: string, from: string, to: string, signal?: AbortSignal): Promise<string> {
    assertLanguages(BACKEND, from, to);
    if (from === to) return text;
    assertOffered(BACKEND, this.#pairs, from, to);
    return translateInChunks(
      text,
      this.#maxChunkChars,
      async (chunk) => {
        const body = { text: chunk, source_lang: from, target_lang: to } as TranslateRequest;
        const json = await postJson(this.#endpoint, body, this.#request(signal));
        const parsed = TranslateResponse.safeParse(json);
        if (!parsed.success) {
          throw new TranslationError(
            BACKEND,
            "bad_response",
            `no translated_text in ${JSON.stringify(json).slice(0, 100)}`,
          );
        }
        return parsed.data.translated_text;
      },
      from,
    );
  }

  #request(signal: AbortSignal | undefined) {
    return { backend: BACKEND, headers: this.#headers, timeoutMs: this.#timeoutMs, signal };
  }
}
