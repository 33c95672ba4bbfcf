/**
 * The window decoder's loop test: a window that looped is not given to the next one as context.
 * Node-only (zlib); the token half is the shared hasLoopingRun (protocol/postprocess/repetition.ts).
 */
import { deflateSync } from "node:zlib";
import { hasLoopingRun, type RepetitionOptions } from "../../protocol/postprocess/repetition.ts";

/**
 * whisper's compression ratio: UTF-8 length over zlib-compressed length. Above 2.4 whisper treats a
 * decode as failed (degenerate, repetitive text); normal speech sits near 1.2–1.8 and short texts below 1.
 *
 * @example
 * compressionRatio("xin chào ".repeat(40)); // ≈ 17
 */
export function compressionRatio(text: string): number {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length === 0) return 0;
  return bytes.length / deflateSync(bytes).length;
}

/**
 * Whether a decoded window looped: some unit repeats 3+ times in a row over at least 6 tokens
 * (so "no no no" is speech, "cảm ơn các bạn" three times is a loop), or the text compresses better than
 * whisper's 2.4 threshold. The decoder gives no cross-window context after a looped window, so the
 * loop does not carry into the next one.
 *
 * @example
 * looped("Hẹn gặp lại. Hẹn gặp lại. Hẹn gặp lại."); // true
 * looped("Hôm nay trời đẹp quá."); // false
 */
export function looped(text: string, options: RepetitionOptions = {}): boolean {
  return hasLoopingRun(text, options) || compressionRatio(text) > 2.4;
}
