import { describe, expect, it } from "vitest";
import {
  HALLUCINATION_PHRASES,
  isKnownHallucination,
  isSilenceHallucination,
} from "../../protocol/postprocess/hallucinations.ts";

const silent = { noSpeechProb: 0.82, avgLogprob: -0.35 };
const spoken = { noSpeechProb: 0.03, avgLogprob: -0.25 };

describe("isKnownHallucination", () => {
  it("matches English stock phrases, case- and punctuation-insensitively", () => {
    expect(isKnownHallucination(" Thank you.")).toBe(true);
    expect(isKnownHallucination("THANKS FOR WATCHING")).toBe(true);
    expect(isKnownHallucination(" Subtitles by the Amara.org community")).toBe(true);
    expect(isKnownHallucination("Please subscribe!")).toBe(true);
    expect(isKnownHallucination(" you")).toBe(true);
  });

  it("matches Vietnamese phrases, with any channel name and without diacritics", () => {
    expect(
      isKnownHallucination(" Hãy subscribe cho kênh Ghiền Mì Gõ Để không bỏ lỡ những video hấp dẫn"),
    ).toBe(true);
    expect(
      isKnownHallucination("Hãy subscribe cho kênh La La School để không bỏ lỡ những video hấp dẫn."),
    ).toBe(true);
    expect(isKnownHallucination("Cảm ơn các bạn đã theo dõi.")).toBe(true);
    expect(isKnownHallucination("cam on cac ban da xem video")).toBe(true);
    expect(isKnownHallucination("Hẹn gặp lại các bạn trong những video tiếp theo!")).toBe(true);
  });

  it("matches Japanese, Korean and Chinese phrases, spacing-insensitively", () => {
    expect(isKnownHallucination("ご視聴ありがとうございました。")).toBe(true);
    expect(isKnownHallucination("시청해주셔서 감사합니다.")).toBe(true);
    expect(isKnownHallucination("시청해 주셔서 감사합니다")).toBe(true);
    expect(isKnownHallucination("请不吝点赞 订阅 转发 打赏支持明镜与点点栏目")).toBe(true);
    expect(isKnownHallucination("字幕由Amara.org社区提供")).toBe(true);
  });

  it("does not match speech that merely contains a phrase", () => {
    expect(isKnownHallucination("Thank you for coming to the meeting today.")).toBe(false);
    expect(isKnownHallucination("Cảm ơn các bạn đã theo dõi và hôm nay chúng ta bàn tiếp về giá.")).toBe(
      false,
    );
    expect(isKnownHallucination("Young people")).toBe(false);
    expect(isKnownHallucination("")).toBe(false);
  });

  it("lists phrases for the main languages", () => {
    for (const lang of ["en", "vi", "ja", "ko", "zh"])
      expect(HALLUCINATION_PHRASES[lang]?.length).toBeGreaterThan(2);
  });
});

describe("isSilenceHallucination", () => {
  it("drops a known phrase only when the decoder doubted the speech", () => {
    expect(isSilenceHallucination(" Thank you.", silent)).toBe(true);
    expect(isSilenceHallucination(" Thank you.", spoken)).toBe(false);
    expect(
      isSilenceHallucination("Cảm ơn các bạn đã xem video", { noSpeechProb: 0.1, avgLogprob: -1.4 }),
    ).toBe(true);
  });

  it("never drops unlisted text, however silent", () => {
    expect(
      isSilenceHallucination("Giá vàng hôm nay tăng mạnh.", { noSpeechProb: 0.99, avgLogprob: -2 }),
    ).toBe(false);
  });

  it("uses no_speech_prob >= threshold (default 0.6) and avg_logprob < floor (default -1)", () => {
    expect(isSilenceHallucination("Thank you.", { noSpeechProb: 0.6, avgLogprob: 0 })).toBe(true);
    expect(isSilenceHallucination("Thank you.", { noSpeechProb: 0.59, avgLogprob: -1 })).toBe(false);
    expect(
      isSilenceHallucination("Thank you.", { noSpeechProb: 0.3, avgLogprob: 0 }, { noSpeechThreshold: 0.3 }),
    ).toBe(true);
    expect(
      isSilenceHallucination("Thank you.", { noSpeechProb: 0, avgLogprob: -0.8 }, { logprobThreshold: -0.5 }),
    ).toBe(true);
  });

  it("treats a NaN avg_logprob (no text tokens) as no evidence", () => {
    expect(isSilenceHallucination("Thank you.", { noSpeechProb: 0.1, avgLogprob: Number.NaN })).toBe(false);
  });
});
