import { ApiError } from "../errors.ts";
import { describePairs, fleetLanguages } from "../translation/languages.ts";
import { OpenAIError } from "./errors.ts";

/**
 * `target_language` on /v1/audio/translations (a Voxedge extension): whisper translates speech into
 * English itself; any other target goes through the connected nodes' translation backends, so it is
 * refused up front when none of them translates into it. The speech's own language is only known once
 * the node hears it: a pair the node's backend then cannot do fails the task `translation_unavailable`.
 */

/**
 * Throws OpenAI's 400 (`param: "target_language"`, code `unsupported_value`) naming the pairs the
 * connected nodes offer, unless one of them translates into `target`; 503 when the node table cannot
 * be read.
 *
 * @example await checkTranslationTarget(env, "es"); // resolves when a node offers e.g. ["en", "es"]
 */
export async function checkTranslationTarget(env: Env, target: string): Promise<void> {
  let pairs: [string, string][];
  try {
    pairs = (await fleetLanguages(env)).view?.translation_pairs ?? [];
  } catch (cause) {
    console.error(JSON.stringify({ translation_target: "node table unavailable", error: String(cause) }));
    throw new ApiError(
      "service_unavailable",
      "the translation service is temporarily unavailable; try again",
    );
  }
  if (pairs.some(([, to]) => to === target)) return;
  throw new OpenAIError(
    "bad_request",
    `target_language "${target}" is not available: no connected translation backend translates into it. ` +
      `Available: any language -> en (whisper itself); through the translation backends: ${describePairs(pairs)}`,
    { param: "target_language", openaiCode: "unsupported_value" },
  );
}
