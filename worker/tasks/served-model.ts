import type { ModelRegistry } from "../../protocol/model-registry.ts";

/**
 * The recognition model /health names as `asr_model`, out of the models that are served now
 * (`served`: what connected batch nodes and live engines report loaded), so it never names a model
 * nobody serves while something does:
 *
 * 1. `remoteServing`: the registry default when it is an `http` entry that can be called (an
 *    endpoint, or for Workers AI the binding): the Worker's remote tier serves it, whatever nodes load;
 * 2. else the registry default when some node serves it;
 * 3. else the first registry entry (registry order) some node serves, then any other served id
 *    (alphabetical: a node may load a file the registry does not list);
 * 4. else, nothing serving, the registry default: the model that would be loaded (the spec's
 *    `asr_model` is always the configured base model), with `asr_loaded` false.
 *
 * @example
 * servedAsrModel(defaultRegistry, ["whisper-small"], null); // "whisper-small": nobody serves whisper-base
 * servedAsrModel(defaultRegistry, [], null); // "whisper-base"
 */
export function servedAsrModel(
  registry: ModelRegistry,
  served: readonly string[],
  remoteServing: string | null,
): string {
  if (remoteServing) return remoteServing;
  const servedIds = new Set(served.filter((id) => id !== ""));
  if (servedIds.has(registry.default_model)) return registry.default_model;
  const registered = registry.models.find((entry) => servedIds.has(entry.id));
  if (registered) return registered.id;
  return [...servedIds].sort()[0] ?? registry.default_model;
}
