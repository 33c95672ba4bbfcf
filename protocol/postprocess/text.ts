/**
 * Small text helpers the post-processing rules share: comparison keys and script-aware joining.
 */

/**
 * Regex class body (no brackets) of characters written without spaces between words: Han, kana,
 * Thai, Lao, Khmer, Myanmar, Tibetan, and CJK/fullwidth punctuation. Each is a token of its own.
 */
export const NO_SPACE_CLASS = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Tibetan}\u3000-\u303f\uff00-\uffef`;

const NO_SPACE = new RegExp(`[${NO_SPACE_CLASS}]`, "u");

/** CJK and fullwidth punctuation, which sits against its neighbours without spaces. */
const CJK_PUNCTUATION = /[\u3000-\u303f\uff00-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]/u;

/** Whether `ch` (one character) belongs to a script written without spaces (Han, kana, Thai...). */
export function isNoSpaceChar(ch: string): boolean {
  return NO_SPACE.test(ch);
}

/**
 * A comparison key: NFC, lower case, Vietnamese đ folded to d, diacritics dropped (after NFD), and
 * everything that is not a letter or digit removed, spaces included. Kana lose their voicing marks
 * and Hangul syllables become jamo, the same on both sides of a comparison.
 *
 * @example
 * foldForMatch("Cảm ơn các bạn đã theo dõi!"); // "camoncacbandatheodoi"
 */
export function foldForMatch(text: string): string {
  return text
    .normalize("NFC")
    .toLowerCase()
    .replace(/đ/g, "d")
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .replace(/[^\p{L}\p{N}]/gu, "");
}

/** Whether the text holds at least one letter or digit (what is left is worth keeping). */
export function hasWordContent(text: string): boolean {
  return /[\p{L}\p{N}]/u.test(text);
}

/**
 * Joins pieces of transcript (whisper segment texts) after trimming each: one space between pieces,
 * none where both sides of the seam are in a script written without spaces (Chinese, Japanese, Thai)
 * or the next piece opens with CJK punctuation. Text inside a piece is kept verbatim.
 *
 * @example
 * joinPieces([" Xin chào", " các bạn."]); // "Xin chào các bạn."
 * joinPieces(["你好。", "谢谢。"]); // "你好。谢谢。"
 */
export function joinPieces(pieces: readonly string[]): string {
  let out = "";
  for (const raw of pieces) {
    const piece = raw.trim();
    if (!piece) continue;
    if (out) {
      const last = Array.from(out.slice(-2)).at(-1) ?? "";
      const first = String.fromCodePoint(piece.codePointAt(0) ?? 32);
      const glue = (isNoSpaceChar(last) && isNoSpaceChar(first)) || CJK_PUNCTUATION.test(first) ? "" : " ";
      out += glue + piece;
    } else {
      out = piece;
    }
  }
  return out;
}
