import { z } from "zod";

/**
 * The model registry: which recognition models the deployment knows. The Worker shows it on /models;
 * nodes load `file` (relative to their models folder) for local kinds. The deployment always serves
 * `default_model`, whatever a request names.
 */
/** Who answers an `http` entry: any OpenAI-compatible transcription endpoint, or Workers AI's binding. */
export const REMOTE_PROVIDERS = ["openai", "workers_ai"] as const;

/** The Workers AI speech model an entry of provider `workers_ai` runs unless it names another. */
export const WORKERS_AI_WHISPER_MODEL = "@cf/openai/whisper-large-v3-turbo";

/**
 * One model. An `http` entry without an endpoint (for `workers_ai`: without the AI binding) is listed
 * but not ready, and jobs for it get 503.
 */
export const RegistryEntry = z.object({
  id: z.string(),
  label: z.string(),
  /** local: a fine-tuned local model (needs a language); local_base: multilingual base (auto-detect); http: a remote tier. */
  kind: z.enum(["local", "local_base", "http"]),
  file: z.string().optional(),
  /** http + openai: the full URL of the endpoint's `.../audio/transcriptions`. */
  endpoint: z.url({ protocol: /^https?$/ }).optional(),
  /** http: who answers (default `openai`: any OpenAI-compatible endpoint). */
  provider: z.enum(REMOTE_PROVIDERS).default("openai"),
  /** http: the model name sent to the endpoint (`model` form field, or the Workers AI model id). */
  remote_model: z.string().min(1).max(200).optional(),
  /** http + openai: the name of the Worker secret (or var) holding the endpoint's bearer key; none = no Authorization. */
  api_key_env: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]{0,63}$/, "an environment variable name (A-Z, 0-9, _)")
    .optional(),
  /** http: the longest one remote call may take before it counts as a (retryable) timeout. */
  timeout_sec: z.number().int().min(1).max(900).default(300),
  supports_streaming: z.boolean().default(false),
  supports_timestamps: z.boolean().default(false),
  supports_context: z.boolean().default(false),
});
export type RegistryEntry = z.infer<typeof RegistryEntry>;

export const ModelRegistry = z.object({
  default_model: z.string(),
  models: z.array(RegistryEntry).min(1),
});
export type ModelRegistry = z.infer<typeof ModelRegistry>;

/** The built-in registry; a deployment can replace it with the MODEL_REGISTRY variable (same JSON). */
export const defaultRegistry: ModelRegistry = ModelRegistry.parse({
  default_model: "whisper-base",
  models: [
    {
      id: "whisper-base",
      label: "Whisper base (multilingual)",
      kind: "local_base",
      file: "ggml-base.bin",
      supports_streaming: true,
      supports_timestamps: true,
      supports_context: true,
    },
  ],
});

/** Parses a registry from configuration text, falling back to the built-in one when unset. */
export function parseRegistry(json: string | undefined): ModelRegistry {
  if (!json) return defaultRegistry;
  const registry = ModelRegistry.parse(JSON.parse(json));
  if (!registry.models.some((m) => m.id === registry.default_model)) {
    throw new Error(`model registry: default_model "${registry.default_model}" is not among its models`);
  }
  return registry;
}

/**
 * The whisper.cpp catalog name of a local entry's file (`ggml-base.bin` → `base`): what
 * `npm run model:download -- NAME` fetches for it. Null for a file that is not named like one.
 */
export function downloadNameOf(entry: RegistryEntry): string | null {
  return /^ggml-(.+)\.bin$/.exec(entry.file ?? "")?.[1] ?? null;
}

/** The command that puts the real weights of `entry` where a node looks for them. */
export function modelFixCommand(entry: RegistryEntry): string {
  return `npm run model:download -- ${downloadNameOf(entry) ?? "NAME"}`;
}

/**
 * What /health and /models say while a node serves a synthetic stand-in for `entry`: what it is,
 * what it does to transcripts, and the one command that fixes it.
 */
export function syntheticModelNotice(entry: RegistryEntry): string {
  return `Synthetic stand-in for ${entry.label} (random weights: transcripts are noise). Fix: ${modelFixCommand(entry)}, then restart the node.`;
}
