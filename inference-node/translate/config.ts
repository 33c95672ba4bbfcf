/**
 * Which translation backend a node uses, validated, and the factory that builds it.
 */
import { z } from "zod";
import { languageName } from "../../protocol/languages.ts";
import { ApertiumTranslator } from "./apertium.ts";
import { LibreTranslateTranslator } from "./libretranslate.ts";
import { OpenAIChatTranslator } from "./openai-chat.ts";
import type { Translator } from "./translator.ts";
import { WorkersAiTranslator } from "./workers-ai.ts";

// z.httpUrl() wants a dotted hostname with a TLD; local servers ("127.0.0.1", "lt:5000") must pass
const baseUrl = z.url({ protocol: /^https?$/ });
const timeoutMs = z.coerce.number().int().positive().default(30_000);
/** A comma-separated list of language codes the API knows (`en,vi,es`). */
const languages = z
  .string()
  .transform((list) =>
    list
      .split(",")
      .map((code) => code.trim().toLowerCase())
      .filter(Boolean),
  )
  .pipe(
    z.array(z.string().refine((code) => languageName(code) !== undefined, "unknown language code")).min(2),
  )
  .optional();

export const TranslatorConfig = z.discriminatedUnion("backend", [
  z.object({ backend: z.literal("none") }),
  z.object({
    backend: z.literal("apertium"),
    /** APy base URL; requests go to {url}/listPairs and {url}/translate. */
    url: baseUrl,
    timeoutMs,
    maxChunkChars: z.coerce.number().int().min(100).default(2000),
  }),
  z.object({
    backend: z.literal("libretranslate"),
    /** Server base URL; requests go to {url}/languages and {url}/translate. */
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
    languages,
  }),
  z.object({
    backend: z.literal("workers-ai"),
    /** The Worker's base URL; requests go to its internal translate route. */
    url: baseUrl,
    /** The node's NODE_TOKEN. */
    token: z.string().min(8),
    timeoutMs,
    languages,
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
 * const mt = createTranslator({ backend: "apertium", url: "http://127.0.0.1:2737" });
 * mt?.model; // "apertium", the mt_model
 */
export function createTranslator(config: TranslatorConfigInput): Translator | null {
  const parsed = TranslatorConfig.parse(config);
  switch (parsed.backend) {
    case "none":
      return null;
    case "apertium":
      return new ApertiumTranslator(parsed);
    case "libretranslate":
      return new LibreTranslateTranslator(parsed);
    case "openai":
      return new OpenAIChatTranslator(parsed);
    case "workers-ai":
      return new WorkersAiTranslator(parsed);
  }
}

/** What the node itself knows that a backend may need: the Worker it talks to and its token. */
export interface NodeIdentity {
  workerUrl: string;
  token: string;
}

/**
 * The translator config from environment variables, for {@link createTranslator}:
 * VOXEDGE_MT_BACKEND (none | apertium | libretranslate | openai | workers-ai; default none),
 * VOXEDGE_MT_URL (for workers-ai it defaults to the node's Worker), VOXEDGE_MT_API_KEY,
 * VOXEDGE_MT_MODEL, VOXEDGE_MT_TIMEOUT_MS, VOXEDGE_MT_LANGUAGES (openai and workers-ai: the languages
 * offered, comma-separated).
 *
 * @example
 * const mt = createTranslator(translatorConfigFromEnv(process.env, { workerUrl, token }));
 */
export function translatorConfigFromEnv(env: NodeJS.ProcessEnv, node?: NodeIdentity): TranslatorConfigInput {
  const backend = env.VOXEDGE_MT_BACKEND ?? "none";
  const defined = <T extends object>(o: T): T =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== "")) as T;
  const workersAi = backend === "workers-ai";
  return defined({
    backend,
    url: env.VOXEDGE_MT_URL || (workersAi ? node?.workerUrl : undefined),
    apiKey: env.VOXEDGE_MT_API_KEY,
    token: workersAi ? node?.token : undefined,
    model: env.VOXEDGE_MT_MODEL,
    timeoutMs: env.VOXEDGE_MT_TIMEOUT_MS,
    languages: env.VOXEDGE_MT_LANGUAGES,
  }) as TranslatorConfigInput;
}
