/**
 * ISO 639 three-letter codes for the whisper codes the API uses: Apertium names its language pairs
 * with them, and language detection (franc) answers with them. ISO 639-3 names the individual
 * language of a few macro-languages (`nob` for Norwegian Bokmål, `zsm`/`zlm` for Malay...): those are
 * listed as aliases.
 */

// biome-ignore format: a packed table reads better than 100 one-entry lines
const ALPHA3: Readonly<Record<string, string>> = {
  en: "eng", zh: "zho", de: "deu", es: "spa", ru: "rus", ko: "kor", fr: "fra", ja: "jpn", pt: "por",
  tr: "tur", pl: "pol", ca: "cat", nl: "nld", ar: "ara", sv: "swe", it: "ita", id: "ind", hi: "hin",
  fi: "fin", vi: "vie", he: "heb", uk: "ukr", el: "ell", ms: "msa", cs: "ces", ro: "ron", da: "dan",
  hu: "hun", ta: "tam", no: "nor", th: "tha", ur: "urd", hr: "hrv", bg: "bul", lt: "lit", la: "lat",
  mi: "mri", ml: "mal", cy: "cym", sk: "slk", te: "tel", fa: "fas", lv: "lav", bn: "ben", sr: "srp",
  az: "aze", sl: "slv", kn: "kan", et: "est", mk: "mkd", br: "bre", eu: "eus", is: "isl", hy: "hye",
  ne: "nep", mn: "mon", bs: "bos", kk: "kaz", sq: "sqi", sw: "swa", gl: "glg", mr: "mar", pa: "pan",
  si: "sin", km: "khm", sn: "sna", yo: "yor", so: "som", af: "afr", oc: "oci", ka: "kat", be: "bel",
  tg: "tgk", sd: "snd", gu: "guj", am: "amh", yi: "yid", lo: "lao", uz: "uzb", fo: "fao", ht: "hat",
  ps: "pus", tk: "tuk", nn: "nno", mt: "mlt", sa: "san", lb: "ltz", my: "mya", bo: "bod", tl: "tgl",
  mg: "mlg", as: "asm", tt: "tat", haw: "haw", ln: "lin", ha: "hau", ba: "bak", jw: "jav", su: "sun",
  yue: "yue",
};

/** Individual-language and bibliographic codes that mean one of the languages above. */
const ALIASES: Readonly<Record<string, string>> = {
  nob: "no",
  cmn: "zh",
  chi: "zh",
  arb: "ar",
  zsm: "ms",
  zlm: "ms",
  may: "ms",
  pes: "fa",
  per: "fa",
  ger: "de",
  fre: "fr",
  dut: "nl",
  cze: "cs",
  rum: "ro",
  gre: "el",
  slo: "sk",
  ice: "is",
  arm: "hy",
  geo: "ka",
  mac: "mk",
  alb: "sq",
  baq: "eu",
  wel: "cy",
  bur: "my",
  tib: "bo",
  ekk: "et",
  lvs: "lv",
  uzn: "uz",
  khk: "mn",
  npi: "ne",
  swh: "sw",
  plt: "mg",
  azj: "az",
  pbu: "ps",
  ydd: "yi",
};

const FROM_ALPHA3 = new Map<string, string>([
  ...Object.entries(ALPHA3).map(([two, three]) => [three, two] as [string, string]),
  ...Object.entries(ALIASES),
]);

/**
 * The whisper code of a three-letter language code, a variant suffix dropped; null when the API has
 * no such language.
 *
 * @example
 * fromAlpha3("spa"); // "es"
 * fromAlpha3("eng_US"); // "en"
 * fromAlpha3("epo"); // null (whisper does not hear Esperanto)
 */
export function fromAlpha3(code: string): string | null {
  const base = code.split(/[_-]/, 1)[0]?.toLowerCase() ?? "";
  return FROM_ALPHA3.get(base) ?? null;
}
