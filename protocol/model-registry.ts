import { z } from "zod";

/**
 * The model registry: which recognition models the deployment knows. The Worker shows it on /models;
 * nodes load `file` (relative to their models folder) for local kinds. The deployment always serves
 * `default_model`, whatever a request names.
 */
export const RegistryEntry = z.object({
  id: z.string(),
  label: z.string(),
  /** local: a fine-tuned local model (needs a language); local_base: multilingual base (auto-detect). */
  kind: z.enum(["local", "local_base", "http"]),
  file: z.string().optional(),
  endpoint: z.string().optional(),
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
