/**
 * The one sentence splitter of the platform (the node's content builders and translation chunks, the
 * subtitle writer's translated cues, note titles): ICU sentence boundaries through `Intl.Segmenter`,
 * which handle Latin, Vietnamese and CJK punctuation, decimals ("3.5") and closing quotes. V8's ICU
 * has no abbreviation suppression, so a boundary right after a title or initial that precedes a name
 * ("Mr.", "Dr.", "J.", Vietnamese "TP.", "GS.") is undone here.
 */

/** One sentence and the whitespace after it: joining every `text + after` gives back the input. */
export interface SentenceSpan {
  text: string;
  after: string;
}

/**
 * Abbreviations, per base language, that stand before a name and never end a sentence, without their
 * full stop and lower-cased. Kept short on purpose: "etc." or "Inc." often do end one.
 */
const NAME_PREFIXES: Record<string, ReadonlySet<string>> = {
  en: new Set([
    "mr",
    "mrs",
    "ms",
    "dr",
    "prof",
    "st",
    "mt",
    "sr",
    "jr",
    "gen",
    "col",
    "capt",
    "lt",
    "sgt",
    "rev",
    "no",
    "vs",
  ]),
  // Thành phố, Giáo sư, Phó giáo sư, Tiến sĩ, Thạc sĩ, Bác sĩ, Kỹ sư, Quận, Phường
  vi: new Set(["tp", "gs", "pgs", "ts", "ths", "bs", "ks", "q", "p"]),
};

const segmenters = new Map<string, Intl.Segmenter>();

function segmenterFor(language: string): Intl.Segmenter {
  let segmenter = segmenters.get(language);
  if (!segmenter) {
    try {
      segmenter = new Intl.Segmenter(language, { granularity: "sentence" });
    } catch {
      // Not a BCP 47 tag: ICU's boundaries are the same for every language anyway.
      segmenter = new Intl.Segmenter("en", { granularity: "sentence" });
    }
    segmenters.set(language, segmenter);
  }
  return segmenter;
}

/** True when `sentence` ends in a name prefix or a capital initial ("J."), so the next one continues it. */
function endsInNamePrefix(sentence: string, prefixes: ReadonlySet<string>): boolean {
  const last = /(?:^|[\s("“‘])([\p{L}]+)\.$/u.exec(sentence)?.[1];
  if (!last) return false;
  return prefixes.has(last.toLowerCase()) || /^\p{Lu}$/u.test(last);
}

/**
 * The sentences of `text` with the whitespace after each, in order; nothing of the input is dropped.
 * `language` is a BCP 47 tag ("en", "vi-VN"); it picks the abbreviation list.
 *
 * @example
 * sentenceSpans("Dr. Lee came. Xin chào!");
 * // [{ text: "Dr. Lee came.", after: " " }, { text: "Xin chào!", after: "" }]
 */
export function sentenceSpans(text: string, language = "en"): SentenceSpan[] {
  const base = language.toLowerCase().split(/[-_]/)[0] ?? "en";
  const prefixes = NAME_PREFIXES[base] ?? NAME_PREFIXES.en ?? new Set<string>();
  const spans: SentenceSpan[] = [];
  const close = (piece: string) => {
    const body = piece.trimEnd();
    const last = spans.at(-1);
    // ICU gives a blank line a segment of its own: it is whitespace after the previous sentence.
    if (!body && last) last.after += piece;
    else spans.push({ text: body, after: piece.slice(body.length) });
  };
  let pending = "";
  for (const { segment } of segmenterFor(language).segment(text)) {
    pending += segment;
    const body = pending.trimEnd();
    if (body && endsInNamePrefix(body, prefixes) && !/\n\s*$/.test(pending)) continue;
    close(pending);
    pending = "";
  }
  if (pending) close(pending);
  return spans;
}

/**
 * The sentences of `text`, trimmed, without empty ones.
 *
 * @example
 * splitSentences("Hôm nay trời đẹp. TP. Hồ Chí Minh rất lớn!", "vi");
 * // ["Hôm nay trời đẹp.", "TP. Hồ Chí Minh rất lớn!"]
 */
export function splitSentences(text: string, language = "en"): string[] {
  return sentenceSpans(text, language)
    .map((span) => span.text.trim())
    .filter((sentence) => sentence !== "");
}
