/**
 * The languages whisper recognises (whisper.cpp's table, in its order): short code -> Title-case name.
 * The Worker normalises request languages against it; the node prints result languages from it.
 */
// biome-ignore format: a packed table reads better than 100 one-entry lines
export const LANGUAGES = {
  en: "English", zh: "Chinese", de: "German", es: "Spanish", ru: "Russian", ko: "Korean", fr: "French",
  ja: "Japanese", pt: "Portuguese", tr: "Turkish", pl: "Polish", ca: "Catalan", nl: "Dutch", ar: "Arabic",
  sv: "Swedish", it: "Italian", id: "Indonesian", hi: "Hindi", fi: "Finnish", vi: "Vietnamese",
  he: "Hebrew", uk: "Ukrainian", el: "Greek", ms: "Malay", cs: "Czech", ro: "Romanian", da: "Danish",
  hu: "Hungarian", ta: "Tamil", no: "Norwegian", th: "Thai", ur: "Urdu", hr: "Croatian", bg: "Bulgarian",
  lt: "Lithuanian", la: "Latin", mi: "Maori", ml: "Malayalam", cy: "Welsh", sk: "Slovak", te: "Telugu",
  fa: "Persian", lv: "Latvian", bn: "Bengali", sr: "Serbian", az: "Azerbaijani", sl: "Slovenian",
  kn: "Kannada", et: "Estonian", mk: "Macedonian", br: "Breton", eu: "Basque", is: "Icelandic",
  hy: "Armenian", ne: "Nepali", mn: "Mongolian", bs: "Bosnian", kk: "Kazakh", sq: "Albanian",
  sw: "Swahili", gl: "Galician", mr: "Marathi", pa: "Punjabi", si: "Sinhala", km: "Khmer", sn: "Shona",
  yo: "Yoruba", so: "Somali", af: "Afrikaans", oc: "Occitan", ka: "Georgian", be: "Belarusian",
  tg: "Tajik", sd: "Sindhi", gu: "Gujarati", am: "Amharic", yi: "Yiddish", lo: "Lao", uz: "Uzbek",
  fo: "Faroese", ht: "Haitian Creole", ps: "Pashto", tk: "Turkmen", nn: "Nynorsk", mt: "Maltese",
  sa: "Sanskrit", lb: "Luxembourgish", my: "Myanmar", bo: "Tibetan", tl: "Tagalog", mg: "Malagasy",
  as: "Assamese", tt: "Tatar", haw: "Hawaiian", ln: "Lingala", ha: "Hausa", ba: "Bashkir", jw: "Javanese",
  su: "Sundanese", yue: "Cantonese",
} as const;
export type LanguageCode = keyof typeof LANGUAGES;

/** Other spellings clients send: whisper's own name aliases, and ISO codes whisper spells differently. */
const ALIASES = new Map<string, LanguageCode>([
  ["burmese", "my"],
  ["valencian", "ca"],
  ["flemish", "nl"],
  ["haitian", "ht"],
  ["letzeburgesch", "lb"],
  ["pushto", "ps"],
  ["panjabi", "pa"],
  ["moldavian", "ro"],
  ["moldovan", "ro"],
  ["sinhalese", "si"],
  ["castilian", "es"],
  ["mandarin", "zh"],
  ["jv", "jw"],
  ["iw", "he"],
]);

const BY_NAME = new Map<string, LanguageCode>(
  Object.entries(LANGUAGES).map(([code, name]) => [name.toLowerCase(), code as LanguageCode]),
);

/** What a request's `language` asks for. */
export type LanguageChoice =
  | { kind: "auto" }
  | { kind: "language"; code: LanguageCode; name: string }
  | { kind: "unsupported"; input: string };

function isCode(value: string): value is LanguageCode {
  return Object.hasOwn(LANGUAGES, value);
}

/**
 * Normalises a request language: a short code (`vi`), a code with a region (`zh-CN`, `en_US`), a name in
 * any case (`Vietnamese`) or an alias (`Mandarin`). Null, empty and `auto` mean auto-detect.
 *
 * @example normalizeLanguage("zh-CN") // { kind: "language", code: "zh", name: "Chinese" }
 */
export function normalizeLanguage(input: string | null | undefined): LanguageChoice {
  const value = (input ?? "").trim().toLowerCase();
  if (value === "" || value === "auto") return { kind: "auto" };
  const primary = value.split(/[-_]/, 1)[0] ?? value;
  const code = isCode(value)
    ? value
    : (BY_NAME.get(value) ?? ALIASES.get(value) ?? (isCode(primary) ? primary : ALIASES.get(primary)));
  if (!code) return { kind: "unsupported", input: input ?? "" };
  return { kind: "language", code, name: LANGUAGES[code] };
}

/** The Title-case name of a code, as results show it (`vi` -> `Vietnamese`); undefined when unknown. */
export function languageName(code: string): string | undefined {
  return isCode(code) ? LANGUAGES[code] : undefined;
}
