import { workerConfig } from "../../platform/config.ts";
import type { OpenAIModel, OpenAIModelList } from "../schemas/openai.ts";

/**
 * GET /v1/models in OpenAI's list shape: every registry model, plus `whisper-1`, an alias of the
 * registry default so clients that hard-code OpenAI's model name work unchanged.
 */

/** OpenAI's speech model name; requests naming it get the registry default, like any other name. */
export const WHISPER_1 = "whisper-1";
/** The registry records no creation dates; `created` is 0 ("unknown"). */
const CREATED_UNKNOWN = 0;
const OWNER = "voxedge";

const model = (id: string): OpenAIModel => ({
  id,
  object: "model",
  created: CREATED_UNKNOWN,
  owned_by: OWNER,
});

/**
 * The models list.
 *
 * @example listModels(env).data.map((m) => m.id) // ["whisper-base", "whisper-1"]
 */
export function listModels(env: Env): OpenAIModelList {
  const ids = workerConfig(env).modelRegistry.models.map((entry) => entry.id);
  if (!ids.includes(WHISPER_1)) ids.push(WHISPER_1);
  return { object: "list", data: ids.map(model) };
}

/** One model of the list by id, or null. */
export function findModel(env: Env, id: string): OpenAIModel | null {
  return listModels(env).data.find((entry) => entry.id === id) ?? null;
}
