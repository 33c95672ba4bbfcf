import { TranslationError } from "./translator.ts";

/**
 * Why a translator that threw on `from`->`to` fails its task, for the caller's own error class (a
 * content task's ContentError, a transcription's TaskFailureError). A pair the backend does not have
 * is `translation_unavailable`, not the translator failing: another node's backend may have it.
 * Anything else is `translation_failed`. The caller rethrows an abort before asking.
 *
 * @example translationFailure(new TranslationError("apertium", "unsupported", "no en->vi"), "en", "vi").code // "translation_unavailable"
 */
export function translationFailure(
  error: unknown,
  from: string,
  to: string,
): { code: "translation_unavailable" | "translation_failed"; message: string } {
  if (error instanceof TranslationError && error.code === "unsupported") {
    return { code: "translation_unavailable", message: `translation ${from}->${to}: ${error.message}` };
  }
  const cause = error instanceof Error ? error.message : String(error);
  return { code: "translation_failed", message: `translation ${from}->${to} failed: ${cause}` };
}
