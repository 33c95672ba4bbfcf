import { normalizeLanguage } from "../../protocol/languages.ts";
import { modelRegistry } from "../config.ts";
import { ApiError } from "../errors.ts";

/** What every transcription task stores in params (HistoryEntryParams), before its source field. */
export type TranscribeParams = {
  /** The registry's default model: the deployment serves it whatever `model` a request names. */
  model_id: string;
  /** Normalised short code; null means auto-detect. */
  language: string | null;
  /** Prompt for decoding (the model's system turn). */
  context: string;
};

/**
 * Resolves the options an enqueue request sends. `model` is accepted and ignored; the language is
 * normalised (an unsupported one is a 400), and auto-detect is refused unless the default model is the
 * multilingual base (`local_base`): a fine-tuned `local` model needs to be told the language.
 *
 * @example resolveTranscribeParams(env, { language: "Vietnamese", context: "" }) // language: "vi"
 */
export function resolveTranscribeParams(
  env: Env,
  request: { language?: string | null; context: string },
): TranscribeParams {
  const registry = modelRegistry(env);
  const model = registry.models.find((entry) => entry.id === registry.default_model);
  if (!model || (model.kind === "http" && !model.endpoint)) {
    throw new ApiError("service_unavailable", `model ${registry.default_model} is not configured`);
  }
  const choice = normalizeLanguage(request.language);
  if (choice.kind === "unsupported") {
    throw new ApiError(
      "bad_request",
      `unsupported language "${choice.input}": send a short code or name such as vi, en, ja, ko, zh-CN, Vietnamese`,
    );
  }
  if (choice.kind === "auto" && model.kind !== "local_base") {
    throw new ApiError(
      "bad_request",
      `model ${model.id} cannot detect the language: send language (for example "vi")`,
    );
  }
  return {
    model_id: model.id,
    language: choice.kind === "language" ? choice.code : null,
    context: request.context,
  };
}
