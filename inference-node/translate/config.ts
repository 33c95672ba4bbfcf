/**
 * Which translation backend a node uses, validated, and the factory that builds it.
 */
import { z } from "zod";
import { LibreTranslateTranslator } from "./libretranslate.ts";
import { OpenAIChatTranslator } from "./openai-chat.ts";
import type { Translator } from "./translator.ts";

// z.httpUrl() wants a dotted hostname with a TLD; local servers ("127.0.0.1", "lt:5000") must pass
const baseUrl = z.url({ protocol: /^https?$/ });
const timeoutMs = z.coerce.number().int().positive().default(30_000);

export const TranslatorConfig = z.discriminatedUnion("backend", [
  z.object({ backend: z.literal("none") }),
  z.object({
    backend: z.literal("libretranslate"),
    /** Server base URL; requests go to {url}/translate. */
    url: baseUrl,
    apiKey: z.string().min(1).optional(),
    timeoutMs,
    maxChunkChars: z.coerce.number().int().min(100).default(2000),
  }),
  z.object({
    backend: z.literal("openai"),
    /** API base, e.g. https://api.openai.com/v1; requests go to {url}/chat/completions. */
    url: baseUrl,
    apiKey: z.string().min(1),
    model: z.string().min(1),
    timeoutMs,
    maxChunkChars: z.coerce.number().int().min(100).default(4000),
  }),
]);
export type TranslatorConfig = z.infer<typeof TranslatorConfig>;
export type TranslatorConfigInput = z.input<typeof TranslatorConfig>;

/**
 * Builds the configured translator, or null for `backend: "none"` (then /health reports
 * `mt_loaded: false`). Validates the config first and throws zod's error when it is wrong, so a bad
 * setting stops the node at start rather than failing every task.
 *
 * @example
 * const mt = createTranslator({ backend: "openai", url: "https://api.openai.com/v1", apiKey: key, model: "gpt-4o-mini" });
 * mt?.model; // "gpt-4o-mini", the mt_model
 */
export function createTranslator(config: TranslatorConfigInput): Translator | null {
  const parsed = TranslatorConfig.parse(config);
  switch (parsed.backend) {
    case "none":
      return null;
    case "libretranslate":
      return new LibreTranslateTranslator(parsed);
    case "openai":
      return new OpenAIChatTranslator(parsed);
  }
}

/**
 * The translator config from environment variables, for {@link createTranslator}:
 * VOXEDGE_MT_BACKEND (none | libretranslate | openai; default none), VOXEDGE_MT_URL,
 * VOXEDGE_MT_API_KEY, VOXEDGE_MT_MODEL, VOXEDGE_MT_TIMEOUT_MS.
 *
 * @example
 * const mt = createTranslator(translatorConfigFromEnv(process.env));
 */
export function translatorConfigFromEnv(env: NodeJS.ProcessEnv): TranslatorConfigInput {
  const backend = env.VOXEDGE_MT_BACKEND ?? "none";
  const defined = <T extends object>(o: T): T =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== "")) as T;
  return defined({
    backend,
    url: env.VOXEDGE_MT_URL,
    apiKey: env.VOXEDGE_MT_API_KEY,
    model: env.VOXEDGE_MT_MODEL,
    timeoutMs: env.VOXEDGE_MT_TIMEOUT_MS,
  }) as TranslatorConfigInput;
}
