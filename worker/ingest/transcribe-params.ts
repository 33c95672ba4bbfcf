import { workerConfig } from "../../platform/config.ts";
import { normalizeLanguage } from "../../protocol/languages.ts";
import { quoted } from "../../protocol/quoted.ts";
import type { TranscribeParams } from "../../protocol/transcribe-params.ts";
import { ApiError } from "../errors.ts";
import { remoteEntryReady } from "../remote/remote-tier.ts";

/** The parameters every transcription request decides the same way; each route adds its own. */
export type ResolvedTranscribeParams = Pick<TranscribeParams, "model_id" | "language" | "context">;

/**
 * Resolves the options an enqueue request sends. `model` is accepted and ignored; the language is
 * normalised (an unsupported one is a 400), and auto-detect is refused when the default model is a
 * fine-tuned `local` one, which needs to be told the language (the multilingual base and the remote
 * `http` tiers, whisper behind an endpoint, detect it). An `http` default that cannot be called (no
 * endpoint; Workers AI unbound) is a 503.
 *
 * @example resolveTranscribeParams(env, { language: "Vietnamese", context: "" }) // language: "vi"
 */
export function resolveTranscribeParams(
  env: Env,
  request: { language?: string | null; context: string },
): ResolvedTranscribeParams {
  const registry = workerConfig(env).modelRegistry;
  const model = registry.models.find((entry) => entry.id === registry.default_model);
  if (!model || (model.kind === "http" && !remoteEntryReady(env, model))) {
    throw new ApiError("service_unavailable", `model ${registry.default_model} is not configured`);
  }
  const choice = normalizeLanguage(request.language);
  if (choice.kind === "unsupported") {
    throw new ApiError(
      "bad_request",
      `unsupported language ${quoted(choice.input)}: send a short code or name such as vi, en, ja, ko, zh-CN, Vietnamese`,
    );
  }
  if (choice.kind === "auto" && model.kind === "local") {
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
