import { franc } from "franc-min";
import type { LanguageCode } from "./languages.ts";

/** franc's ISO 639-3 answers, as the short codes the rest of the API uses (whisper's table). */
// biome-ignore format: a packed table reads better than 60 one-entry lines
const FROM_639_3: Record<string, LanguageCode> = {
  eng: "en", vie: "vi", spa: "es", por: "pt", ind: "id", fra: "fr", deu: "de", jav: "jw", ita: "it",
  tur: "tr", pol: "pl", swh: "sw", sun: "su", ron: "ro", hau: "ha", bos: "bs", hrv: "hr", nld: "nl",
  srp: "sr", yor: "yo", uzn: "uz", zlm: "ms", tgl: "tl", hun: "hu", azj: "az", ces: "cs", plt: "mg",
  lin: "ln", som: "so", swe: "sv", rus: "ru", ukr: "uk", bel: "be", bul: "bg", kaz: "kk", arb: "ar",
  urd: "ur", pes: "fa", hin: "hi", mar: "mr", npi: "ne", cmn: "zh", jpn: "ja", kor: "ko", ben: "bn",
  tel: "te", tam: "ta", guj: "gu", kan: "kn", mal: "ml", mya: "my", pan: "pa", amh: "am", tha: "th",
  sin: "si", ell: "el",
};

/** Below this many letters a guess is noise; franc itself wants about this much. */
const MIN_LETTERS = 10;

/**
 * The language a text is written in, as a short code, or null when it is too short or unclear.
 * Vietnamese and English are told apart reliably from a sentence on; ~60 others from a paragraph.
 *
 * @example detectLanguage("Hôm nay chúng ta học về lịch sử Việt Nam.") // "vi"
 */
export function detectLanguage(text: string): LanguageCode | null {
  const sample = text.slice(0, 4000);
  if ((sample.match(/\p{L}/gu)?.length ?? 0) < MIN_LETTERS) return null;
  return FROM_639_3[franc(sample, { minLength: MIN_LETTERS })] ?? null;
}
