/**
 * OpenAI-compatible chat backend (OpenAI, vLLM, llama.cpp server, Ollama's /v1...):
 * `POST {url}/chat/completions {model, messages, temperature: 0}` with a Bearer key →
 * `choices[0].message.content`; errors come as `{error: {message}}`.
 */
import { z } from "zod";
import { translateInChunks } from "./chunk.ts";
import { postJson } from "./http.ts";
import {
  assertPair,
  LANGUAGE_NAMES,
  type TranslateLanguage,
  TranslationError,
  type Translator,
} from "./translator.ts";

export interface OpenAIChatOptions {
  /** API base, e.g. https://api.openai.com/v1 (a trailing slash is fine). */
  url: string;
  apiKey: string;
  /** Chat model id; also the `mt_model` /health reports. */
  model: string;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
  /** Longest text per request (default 4000): bounds each answer's length and latency. */
  maxChunkChars?: number;
}

const ChatResponse = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }) })).min(1),
});

const BACKEND = "openai";

/** The system turn: a faithful translation and nothing else, so the answer can be used as is. */
export function translationPrompt(from: TranslateLanguage, to: TranslateLanguage): string {
  return (
    `Translate the user's text faithfully from ${LANGUAGE_NAMES[from]} to ${LANGUAGE_NAMES[to]}. ` +
    "It is a speech transcript. Keep its meaning, names, numbers and line breaks; do not summarize or add anything. " +
    "Output only the translation, with no notes, explanations or quotation marks."
  );
}

/**
 * A {@link Translator} over an OpenAI-compatible chat-completions API, at temperature 0.
 *
 * @example
 * const mt = new OpenAIChatTranslator({ url: "https://api.openai.com/v1", apiKey: key, model: "gpt-4o-mini" });
 * await mt.translate("Good morning, everyone.", "en", "vi"); // "Chào buổi sáng mọi người."
 */
export class OpenAIChatTranslator implements Translator {
  readonly model: string;
  readonly #endpoint: string;
  readonly #apiKey: string;
  readonly #timeoutMs: number;
  readonly #maxChunkChars: number;

  constructor(options: OpenAIChatOptions) {
    this.model = options.model;
    this.#endpoint = `${options.url.replace(/\/+$/, "")}/chat/completions`;
    this.#apiKey = options.apiKey;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#maxChunkChars = options.maxChunkChars ?? 4000;
  }

  async translate(
    text: string,
    from: TranslateLanguage,
    to: TranslateLanguage,
    signal?: AbortSignal,
  ): Promise<string> {
    assertPair(BACKEND, from, to);
    if (from === to) return text;
    const system = translationPrompt(from, to);
    return translateInChunks(text, this.#maxChunkChars, async (chunk) => {
      const body = {
        model: this.model,
        messages: [
          { role: "system", content: system },
          { role: "user", content: chunk },
        ],
        temperature: 0,
      };
      const json = await postJson(this.#endpoint, body, {
        backend: BACKEND,
        headers: { authorization: `Bearer ${this.#apiKey}` },
        timeoutMs: this.#timeoutMs,
        signal,
      });
      const content = ChatResponse.safeParse(json).data?.choices[0]?.message.content;
      if (typeof content !== "string" || !content.trim()) {
        throw new TranslationError(
          BACKEND,
          "bad_response",
          `no message content in ${JSON.stringify(json).slice(0, 100)}`,
        );
      }
      return content;
    });
  }
}
