import { workerConfig } from "../../platform/config.ts";
import { normalizeLanguage } from "../../protocol/languages.ts";
import type { TranscribeParams } from "../../protocol/transcribe-params.ts";
import { ApiError } from "../errors.ts";

/** The parameters every transcription request decides the same way; each route adds its own. */
export type ResolvedTranscribeParams = Pick<TranscribeParams, "model_id" | "language" | "context">;

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
): ResolvedTranscribeParams {
  const registry = workerConfig(env).modelRegistry;
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
