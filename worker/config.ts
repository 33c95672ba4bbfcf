import { type ModelRegistry, parseRegistry } from "../protocol/model-registry.ts";

/** The model registry in force: MODEL_REGISTRY (JSON) when set, else the built-in one. */
export function modelRegistry(env: Env): ModelRegistry {
  return parseRegistry(env.MODEL_REGISTRY || undefined);
}
