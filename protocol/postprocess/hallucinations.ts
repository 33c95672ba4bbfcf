/**
 * whisper's silence hallucinations: stock phrases from its training subtitles ("Thanks for watching!",
 * "Hãy subscribe cho kênh … Để không bỏ lỡ những video hấp dẫn", "ご視聴ありがとうございました") that it
 * writes over silence, music or noise.
 *
 * A phrase alone proves nothing (people do say "thank you"), so a segment is dropped only when its
 * text, compared folded (case, punctuation, spaces and diacritics ignored), is one of the phrases AND
 * the decoder doubted there was speech: no_speech_prob at or above the threshold (default 0.6,
 * whisper's own) or avg_logprob below the floor (default -1, whisper's "failed decode" line).
 * All languages' phrases are checked whatever the detected language: a Vietnamese recording still
 * gets English "Thank you." over its silent tail.
 */
import { foldForMatch } from "./text.ts";

export interface HallucinationOptions {
  /** Drop a listed phrase when no_speech_prob is at or above this (default 0.6). */
  noSpeechThreshold?: number;
  /** ...or when avg_logprob is below this (default -1). */
  logprobThreshold?: number;
}

/** Decoder confidence of one segment, as whisper reports it. */
export interface SegmentConfidence {
  noSpeechProb: number;
  /** NaN (no text tokens) counts as no evidence. */
  avgLogprob: number;
}

/**
 * Known phrases per language. `*` stands for any words (a channel name, a person). Written naturally;
 * they are folded once when the module loads.
 */
export const HALLUCINATION_PHRASES: Readonly<Record<string, readonly string[]>> = {
  en: [
    "you",
    "Thank you.",
    "Thank you very much.",
    "Thank you so much.",
    "Thanks for watching!",
    "Thank you for watching.",
    "Thank you so much for watching.",
    "Thanks for watching, see you next time.",
    "Thank you for watching, please subscribe.",
    "Please subscribe.",
    "Please subscribe to my channel.",
    "Please like and subscribe.",
    "Like and subscribe.",
    "Don't forget to like and subscribe.",
    "Subscribe to my channel.",
    "See you in the next video.",
    "See you next time.",
    "Bye.",
    "Bye bye.",
    "Subtitles by the Amara.org community",
    "Subtitles by *",
    "Captions by *",
    "Transcribed by *",
  ],
  vi: [
    "Hãy subscribe cho kênh * để không bỏ lỡ những video hấp dẫn",
    "Hãy đăng ký kênh * để không bỏ lỡ những video hấp dẫn",
    "Đăng ký kênh * để không bỏ lỡ những video hấp dẫn",
    "Hãy subscribe cho kênh *",
    "Hãy đăng ký kênh *",
    "Nhớ like, share và subscribe *",
    "Hãy like, share và đăng ký kênh *",
    "Cảm ơn các bạn đã theo dõi",
    "Cảm ơn các bạn đã theo dõi video",
    "Cảm ơn các bạn đã xem video",
    "Cảm ơn các bạn đã lắng nghe",
    "Cảm ơn các bạn đã xem",
    "Cảm ơn đã xem",
    "Hẹn gặp lại các bạn trong những video tiếp theo",
    "Hẹn gặp lại các bạn trong video tiếp theo",
    "Hẹn gặp lại các bạn",
    "Chúc các bạn xem video vui vẻ",
    "Phụ đề bởi *",
  ],
  ja: [
    "ご視聴ありがとうございました",
    "ご視聴ありがとうございます",
    "最後までご視聴ありがとうございました",
    "チャンネル登録よろしくお願いします",
    "チャンネル登録お願いします",
  ],
  ko: [
    "시청해주셔서 감사합니다",
    "시청해 주셔서 감사합니다",
    "구독과 좋아요 부탁드립니다",
    "구독과 좋아요 알림설정 부탁드립니다",
    "MBC 뉴스 *입니다",
  ],
  zh: [
    "请不吝点赞 订阅 转发 打赏支持明镜与点点栏目",
    "請不吝點贊 訂閱 轉發 打賞支持明鏡與點點欄目",
    "字幕由Amara.org社区提供",
    "字幕由Amara.org社區提供",
    "小编字幕由Amara.org社区提供",
    "谢谢观看",
    "謝謝觀看",
    "感谢观看",
    "感謝觀看",
    "谢谢大家",
    "请订阅我的频道",
    "中文字幕 *",
  ],
  de: ["Untertitel im Auftrag des ZDF *", "Untertitel der Amara.org-Community", "Vielen Dank fürs Zuschauen"],
  fr: ["Sous-titres réalisés par la communauté d'Amara.org", "Merci d'avoir regardé"],
  es: ["Subtítulos realizados por la comunidad de Amara.org", "Gracias por ver el video"],
};

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** One folded pattern: a literal key, or a regex when the phrase has a wildcard. */
function compile(phrase: string): RegExp {
  const parts = phrase.split("*").map((p) => escapeRegExp(foldForMatch(p)));
  return new RegExp(`^${parts.join(".+")}$`, "u");
}

const PATTERNS: readonly RegExp[] = Object.values(HALLUCINATION_PHRASES).flat().map(compile);

/**
 * Whether the text, folded, is one of the known hallucination phrases (any language), confidence aside.
 *
 * @example
 * isKnownHallucination("Hãy subscribe cho kênh Ghiền Mì Gõ Để không bỏ lỡ những video hấp dẫn"); // true
 * isKnownHallucination("cam on cac ban da theo doi!"); // true
 * isKnownHallucination("Thank you for coming today."); // false
 */
export function isKnownHallucination(text: string): boolean {
  const key = foldForMatch(text);
  return key !== "" && PATTERNS.some((p) => p.test(key));
}

/**
 * Whether a segment is a silence hallucination to drop: a known phrase that the decoder itself
 * doubted (see the module comment).
 *
 * @example
 * isSilenceHallucination("Thank you.", { noSpeechProb: 0.83, avgLogprob: -0.4 }); // true
 * isSilenceHallucination("Thank you.", { noSpeechProb: 0.02, avgLogprob: -0.2 }); // false: real speech
 */
export function isSilenceHallucination(
  text: string,
  confidence: SegmentConfidence,
  options: HallucinationOptions = {},
): boolean {
  const noSpeech = options.noSpeechThreshold ?? 0.6;
  const floor = options.logprobThreshold ?? -1;
  const doubted = confidence.noSpeechProb >= noSpeech || confidence.avgLogprob < floor;
  return doubted && isKnownHallucination(text);
}
