import {
  M2M100_LANGUAGES,
  m2m100Code,
  type TranslateCapabilities,
  type TranslateRequest,
  type TranslateResponse,
  WORKERS_AI_TRANSLATION_MODEL,
} from "../../protocol/translate.ts";
import { ApiError } from "../errors.ts";

/** The part of the Workers AI binding the translate route uses (tests pass their own). */
export interface TranslationModel {
  run(model: string, input: { text: string; source_lang: string; target_lang: string }): Promise<unknown>;
}

/** The deployment's Workers AI binding; null without one (local `wrangler dev`: no `[ai]`). */
export function workersAi(env: Env): TranslationModel | null {
  return (env.AI as TranslationModel | undefined) ?? null;
}

const unbound = () =>
  new ApiError(
    "service_unavailable",
    "Workers AI is not bound on this deployment (deploy with --env production, which has the [ai] binding)",
  );

/** What the route can translate, or 503 without the binding. */
export function translationCapabilities(ai: TranslationModel | null): TranslateCapabilities {
  if (!ai) throw unbound();
  return { model: WORKERS_AI_TRANSLATION_MODEL, languages: [...M2M100_LANGUAGES] };
}

/**
 * Translates one text with m2m100 on Workers AI.
 *
 * @example
 * await translateWithWorkersAi(env.AI, { text: "Hello", source_lang: "en", target_lang: "fr" });
 * // { translated_text: "Bonjour", model: "@cf/meta/m2m100-1.2b" }
 */
export async function translateWithWorkersAi(
  ai: TranslationModel | null,
  request: TranslateRequest,
): Promise<TranslateResponse> {
  if (!ai) throw unbound();
  let output: unknown;
  try {
    output = await ai.run(WORKERS_AI_TRANSLATION_MODEL, {
      text: request.text,
      source_lang: m2m100Code(request.source_lang),
      target_lang: m2m100Code(request.target_lang),
    });
  } catch (cause) {
    throw new ApiError(
      "service_unavailable",
      `Workers AI failed: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
  }
  const text = (output as { translated_text?: unknown } | null)?.translated_text;
  if (typeof text !== "string")
    throw new ApiError("service_unavailable", "Workers AI returned no translated_text");
  return { translated_text: text, model: WORKERS_AI_TRANSLATION_MODEL };
}
