/**
 * Removal of non-speech annotations whisper writes into its text: `[MUSIC]`, `(applause)`,
 * `[BLANK_AUDIO]`, `*laughs*`, `♪ … ♪`, `[Âm nhạc]`, `(tiếng vỗ tay)`, `（拍手）`.
 *
 * The rule, so real parenthesised speech survives ("the figures (see above) show..."):
 * - a span in `[]`, `()`, `（）`, `【】` or `* *` is dropped when its content is a marker:
 *   - English: at most six words, all from the marker vocabulary (heads such as music, applause,
 *     laughs, inaudible, and modifiers such as soft, upbeat, audience, playing), at least one a head
 *     ("soft music", "audience laughing", "speaking Vietnamese");
 *   - Vietnamese, Japanese, Korean, Chinese: the whole content is a known marker phrase ("âm nhạc",
 *     "tiếng vỗ tay", "cười", "音楽", "박수", "掌声"), diacritics kept so "(hồ)" is not "(ho)";
 *   - in square brackets only, also any all-caps tag (`[BLANK_AUDIO]`, `[NO SPEECH]`, `[_BEG_]`);
 * - everything between two music notes goes, notes included, and then any lone note;
 * - whisper special tokens that leak into text (`<|endoftext|>`) go.
 * A text left with no letter or digit becomes "" (a music-note-only segment disappears).
 */
import { hasWordContent } from "./text.ts";

const HEADS = new Set(
  (
    "music musical song songs singing sings instrumental humming hums applause applauding clapping claps " +
    "cheering cheers cheer laughter laugh laughs laughing chuckles chuckling chuckle giggles giggling " +
    "silence silent pause inaudible unintelligible indistinct crosstalk chatter chattering murmuring " +
    "noise noises static sound sounds beep beeping bell bells ringing whistle whistling sigh sighs sighing " +
    "cough coughs coughing sniffles sniffling breath breathing breathes gasps gasping groans groaning " +
    "screams screaming crying cries sobbing footsteps knocking thunder typing foreign speaking speaks " +
    "intro outro blank_audio no_speech"
  ).split(" "),
);

const MODIFIERS = new Set(
  (
    "soft gentle upbeat dramatic light loud quiet slow fast calm sad happy tense intense suspenseful " +
    "mysterious ominous cheerful lively somber ambient electronic rock pop jazz piano guitar orchestral " +
    "classical background playing plays continues continuing fades fading starts stops ends begins " +
    "audience crowd people man woman men women all both the a an and of in out no language languages " +
    "english vietnamese japanese korean chinese french spanish german russian thai"
  ).split(" "),
);

/** Whole-content marker phrases for languages the vocabulary rule does not cover (lower case, NFC). */
const PHRASES = new Set(
  [
    // Vietnamese
    "âm nhạc",
    "nhạc",
    "nhạc nền",
    "tiếng nhạc",
    "nhạc dạo",
    "vỗ tay",
    "tiếng vỗ tay",
    "khán giả vỗ tay",
    "cười",
    "tiếng cười",
    "cười lớn",
    "khán giả cười",
    "im lặng",
    "tiếng ồn",
    "ồn ào",
    "tiếng động",
    "tiếng hát",
    "tiếng ho",
    "ho",
    "thở dài",
    "tiếng khóc",
    "tiếng chuông",
    "không có âm thanh",
    // Japanese
    "音楽",
    "拍手",
    "笑",
    "笑い",
    "笑い声",
    "歓声",
    "無音",
    "沈黙",
    "咳",
    // Korean
    "음악",
    "박수",
    "박수 소리",
    "웃음",
    "웃음소리",
    "웃음 소리",
    "침묵",
    "기침",
    // Chinese (simplified and traditional)
    "音乐",
    "音樂",
    "背景音乐",
    "背景音樂",
    "掌声",
    "掌聲",
    "笑声",
    "笑聲",
    "欢呼",
    "歡呼",
    "沉默",
    "咳嗽",
  ].map((p) => p.normalize("NFC")),
);

const BRACKET_SPAN = /\[([^[\]]*)\]|\(([^()]*)\)|（([^（）]*)）|【([^【】]*)】|\*([^*\n]{1,60})\*/gu;
const NOTE = "♪♫♬♩🎵🎶";
const NOTE_SPAN = new RegExp(`[${NOTE}][^${NOTE}]*[${NOTE}]`, "gu");
const LONE_NOTE = new RegExp(`[${NOTE}]`, "gu");
const SPECIAL_TOKEN = /<\|[^|<>]*\|>/g;

/** Whether the lowercase English content is built only of marker words, with at least one head. */
function vocabularyMarker(content: string): boolean {
  const words = content.split(/[^\p{L}_]+/u).filter(Boolean);
  if (words.length === 0 || words.length > 6) return false;
  return words.every((w) => HEADS.has(w) || MODIFIERS.has(w)) && words.some((w) => HEADS.has(w));
}

/**
 * Whether the content of a bracket span (without the brackets) is a non-speech marker.
 * `square` enables the all-caps tag rule, which only square brackets get.
 *
 * @example
 * isMarkerContent("Soft music playing"); // true
 * isMarkerContent("tiếng vỗ tay"); // true
 * isMarkerContent("see above"); // false
 * isMarkerContent("BLANK_AUDIO", true); // true
 */
export function isMarkerContent(content: string, square = false): boolean {
  const trimmed = content.normalize("NFC").trim();
  if (!trimmed) return square;
  const lower = trimmed.toLowerCase();
  if (PHRASES.has(lower.replace(/[\s.!,…]+$/u, "").replace(/\s+/gu, " "))) return true;
  if (vocabularyMarker(lower)) return true;
  return square && /^[\p{Lu}\d_\s-]+$/u.test(trimmed) && /\p{Lu}.*\p{Lu}/u.test(trimmed);
}

/**
 * Removes non-speech markers (see the module comment for the exact rule) and collapses the whitespace
 * they leave; returns "" when no letter or digit remains.
 *
 * @example
 * removeMarkers("[Music] Xin chào các bạn (tiếng vỗ tay)"); // "Xin chào các bạn"
 * removeMarkers("The results (see above) hold."); // unchanged
 * removeMarkers("♪ ♪"); // ""
 */
export function removeMarkers(text: string): string {
  const stripped = text
    .normalize("NFC")
    .replace(SPECIAL_TOKEN, " ")
    .replace(BRACKET_SPAN, (span, square, round, wide, lenticular, starred) => {
      if (square !== undefined) return isMarkerContent(square, true) ? " " : span;
      const content = round ?? wide ?? lenticular ?? starred ?? "";
      return isMarkerContent(content) ? " " : span;
    })
    .replace(NOTE_SPAN, " ")
    .replace(LONE_NOTE, " ")
    .replace(/\s+/gu, " ")
    .trim();
  return hasWordContent(stripped) ? stripped : "";
}
