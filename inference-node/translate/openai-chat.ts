/**
 * OpenAI-compatible chat backend (OpenAI, vLLM, llama.cpp server, Ollama's /v1...):
 * `POST {url}/chat/completions {model, messages, temperature: 0}` with a Bearer key →
 * `choices[0].message.content`; errors come as `{error: {message}}`.
 */
import { z } from "zod";
import { languageName } from "../../protocol/languages.ts";
import { translateInChunks } from "./chunk.ts";
import { postJson } from "./http.ts";
import {
  allPairs,
  assertLanguages,
  assertOffered,
  type LanguagePair,
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
  /** Languages offered, every direction between them (default {@link DEFAULT_CHAT_LANGUAGES}). */
  languages?: readonly string[];
}

/** What a chat model is offered for by default: widely spoken languages LLMs translate well. */
export const DEFAULT_CHAT_LANGUAGES = [
  "en",
  "vi",
  "es",
  "fr",
  "de",
  "pt",
  "it",
  "zh",
  "ja",
  "ko",
  "ru",
  "ar",
  "hi",
];

const ChatResponse = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }) })).min(1),
});

const BACKEND = "openai";

/** The system turn: a faithful translation and nothing else, so the answer can be used as is. */
export function translationPrompt(from: string, to: string): string {
  return (
    `Translate the user's text faithfully from ${languageName(from) ?? from} to ${languageName(to) ?? to}. ` +
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
  readonly #pairs: LanguagePair[];

  constructor(options: OpenAIChatOptions) {
    this.#pairs = allPairs(options.languages ?? DEFAULT_CHAT_LANGUAGES);
    this.model = options.model;
    this.#endpoint = `${options.url.replace(/\/+$/, "")}/chat/completions`;
    this.#apiKey = options.apiKey;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#maxChunkChars = options.maxChunkChars ?? 4000;
  }

  /** Every direction between the configured languages (a chat model takes any pair). */
  async pairs(): Promise<LanguagePair[]> {
    return this.#pairs;
  }

  async translate(text: string, from: string, to: string, signal?: AbortSignal): Promise<string> {
    assertLanguages(BACKEND, from, to);
    if (from === to) return text;
    assertOffered(BACKEND, this.#pairs, from, to);
    const system = translationPrompt(from, to);
    return translateInChunks(
      text,
      this.#maxChunkChars,
      async (chunk) => {
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
      },
      from,
    );
  }
}
