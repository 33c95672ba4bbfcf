/**
 * Apertium APy backend (rule-based, offline, self-hosted: `apertium-apy -p PORT /usr/share/apertium/modes`):
 * `GET {url}/listPairs` → `{responseData: [{sourceLanguage: "eng", targetLanguage: "spa"}, ...]}`;
 * `POST {url}/translate` (form: langpair=eng|spa, q, markUnknown=no) → `{responseData: {translatedText}}`;
 * errors come as `{status: "error", code, message, explanation}` with a 4xx/5xx status.
 * Apertium names languages with ISO 639-3 codes; the API's whisper codes are mapped both ways.
 */
import { z } from "zod";
import { fromAlpha3 } from "../../protocol/iso639.ts";
import { translateInChunks } from "./chunk.ts";
import { getJson, postForm } from "./http.ts";
import { assertLanguages, type LanguagePair, TranslationError, type Translator } from "./translator.ts";

export interface ApertiumOptions {
  /** APy base URL, e.g. http://127.0.0.1:2737 (a trailing slash is fine). */
  url: string;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
  /** Longest request text (default 2000). */
  maxChunkChars?: number;
}

const PairsResponse = z.object({
  responseData: z.array(z.object({ sourceLanguage: z.string(), targetLanguage: z.string() })),
});
const TranslateResponse = z.object({ responseData: z.object({ translatedText: z.string() }) });

const BACKEND = "apertium";

/**
 * A {@link Translator} over an Apertium APy server. Unknown words pass through unmarked
 * (`markUnknown=no`), so a listener never sees Apertium's `*` markers.
 *
 * @example
 * const mt = new ApertiumTranslator({ url: "http://127.0.0.1:2737" });
 * await mt.pairs(); // [["es", "en"], ["en", "es"]]
 * await mt.translate("The weather is nice", "en", "es"); // "El tiempo es bueno"
 */
export class ApertiumTranslator implements Translator {
  readonly model = BACKEND;
  readonly #base: string;
  readonly #timeoutMs: number;
  readonly #maxChunkChars: number;
  /** "en|es" → "eng|spa", learnt from the server's pair list. */
  #langpairs: Map<string, string> | null = null;

  constructor(options: ApertiumOptions) {
    this.#base = options.url.replace(/\/+$/, "");
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#maxChunkChars = options.maxChunkChars ?? 2000;
  }

  async pairs(signal?: AbortSignal): Promise<LanguagePair[]> {
    const json = await getJson(`${this.#base}/listPairs`, {
      backend: BACKEND,
      timeoutMs: this.#timeoutMs,
      signal,
    });
    const parsed = PairsResponse.safeParse(json);
    if (!parsed.success) {
      throw new TranslationError(
        BACKEND,
        "bad_response",
        `no pair list in ${JSON.stringify(json).slice(0, 100)}`,
      );
    }
    const langpairs = new Map<string, string>();
    for (const { sourceLanguage, targetLanguage } of parsed.data.responseData) {
      const from = fromAlpha3(sourceLanguage);
      const to = fromAlpha3(targetLanguage);
      if (!from || !to || from === to) continue;
      const key = `${from}|${to}`;
      // a plain pair (eng|spa) wins over a regional variant of the same direction (spa|eng_US)
      const plain = !isVariant(sourceLanguage) && !isVariant(targetLanguage);
      if (!langpairs.has(key) || plain) langpairs.set(key, `${sourceLanguage}|${targetLanguage}`);
    }
    this.#langpairs = langpairs;
    return [...langpairs.keys()].map((key) => key.split("|") as unknown as LanguagePair);
  }

  async translate(text: string, from: string, to: string, signal?: AbortSignal): Promise<string> {
    assertLanguages(BACKEND, from, to);
    if (from === to || !text.trim()) return from === to ? text : "";
    if (!this.#langpairs) await this.pairs(signal);
    const langpair = this.#langpairs?.get(`${from}|${to}`);
    if (!langpair) {
      throw new TranslationError(BACKEND, "unsupported", `${from} → ${to} is not installed on this server`);
    }
    return translateInChunks(
      text,
      this.#maxChunkChars,
      async (q) => {
        const json = await postForm(
          `${this.#base}/translate`,
          { langpair, q, markUnknown: "no" },
          { backend: BACKEND, timeoutMs: this.#timeoutMs, signal },
        );
        const parsed = TranslateResponse.safeParse(json);
        if (!parsed.success) {
          throw new TranslationError(
            BACKEND,
            "bad_response",
            `no translatedText in ${JSON.stringify(json).slice(0, 100)}`,
          );
        }
        return parsed.data.responseData.translatedText;
      },
      from,
    );
  }
}

/** Whether an Apertium language name carries a variant (`eng_US`, `cat_valencia`). */
function isVariant(code: string): boolean {
  return /[_-]/.test(code);
}
