import { z } from "zod";

/**
 * The Worker's internal translation route, for nodes whose backend is Cloudflare Workers AI
 * (`VOXEDGE_MT_BACKEND=workers-ai`): the node needs no Cloudflare credentials, only its NODE_TOKEN.
 * The Worker runs the model through its `AI` binding, which only the production environment has.
 *
 *   GET  /internal/v1/translate  → TranslateCapabilities, or 503 when the binding is missing
 *   POST /internal/v1/translate  TranslateRequest → TranslateResponse, or 503 when the binding is missing
 */

export const INTERNAL_TRANSLATE_PATH = "/internal/v1/translate";

/** The Workers AI translation model. */
export const WORKERS_AI_TRANSLATION_MODEL = "@cf/meta/m2m100-1.2b";

/**
 * The whisper codes m2m100 translates (its 100 languages, less those whisper does not hear). Whisper
 * spells Javanese `jw`, m2m100 `jv`: {@link m2m100Code} maps it.
 */
// biome-ignore format: a packed list
export const M2M100_LANGUAGES = [
  "af", "am", "ar", "az", "ba", "be", "bg", "bn", "br", "bs", "ca", "cs", "cy", "da", "de", "el", "en",
  "es", "et", "fa", "fi", "fr", "gl", "gu", "ha", "he", "hi", "hr", "ht", "hu", "hy", "id", "is", "it",
  "ja", "jw", "ka", "kk", "km", "kn", "ko", "lb", "ln", "lo", "lt", "lv", "mg", "mk", "ml", "mn", "mr",
  "ms", "my", "ne", "nl", "no", "oc", "pa", "pl", "ps", "pt", "ro", "ru", "sd", "si", "sk", "sl", "so",
  "sq", "sr", "su", "sv", "sw", "ta", "th", "tl", "tr", "uk", "ur", "uz", "vi", "yi", "yo", "zh",
] as const;

/** m2m100's code for a whisper code. */
export const m2m100Code = (code: string): string => (code === "jw" ? "jv" : code);

const code = z.enum(M2M100_LANGUAGES);

/** One text to translate; the node splits long transcripts into chunks of at most this size. */
export const TranslateRequest = z.strictObject({
  text: z.string().min(1).max(5_000),
  source_lang: code,
  target_lang: code,
});
export type TranslateRequest = z.infer<typeof TranslateRequest>;

export const TranslateResponse = z.object({ translated_text: z.string(), model: z.string() });
export type TranslateResponse = z.infer<typeof TranslateResponse>;

export const TranslateCapabilities = z.object({ model: z.string(), languages: z.array(z.string()) });
export type TranslateCapabilities = z.infer<typeof TranslateCapabilities>;

/**
 * The language to translate a transcription task's text into (the speech-to-text spec's VI↔EN):
 * English for Vietnamese, Vietnamese for English, null for anything else. Accepts region tags and any
 * case.
 *
 * @example
 * translationTarget("vi"); // "en"
 * translationTarget("en-US"); // "vi"
 * translationTarget("ja"); // null
 */
export function translationTarget(languageCode: string): "vi" | "en" | null {
  const base = languageCode.trim().toLowerCase().split(/[-_]/)[0];
  if (base === "vi" || base === "vietnamese") return "en";
  if (base === "en" || base === "english") return "vi";
  return null;
}
