import { describe, expect, it } from "vitest";
import { compressionRatio, looped } from "../../inference-node/postprocess/looped.ts";
import { collapseRepeatedSegments, collapseRepetitions } from "../../protocol/postprocess/repetition.ts";

describe("collapseRepetitions", () => {
  it("keeps one copy of a word or phrase repeated three or more times", () => {
    expect(collapseRepetitions("Cảm ơn. Cảm ơn. Cảm ơn. Cảm ơn.")).toBe("Cảm ơn.");
    expect(collapseRepetitions("I think I think I think we should go")).toBe("I think we should go");
    expect(collapseRepetitions("và và và và và chúng ta bắt đầu")).toBe("và chúng ta bắt đầu");
  });

  it("collapses an 8-word loop but not a longer one", () => {
    const eight = "bạn nhớ đăng ký kênh để ủng hộ";
    expect(collapseRepetitions(`${eight} ${eight} ${eight}`)).toBe(eight);
    const nine = `${eight} nhé`;
    expect(collapseRepetitions(`${nine} ${nine} ${nine}`)).toBe(`${nine} ${nine} ${nine}`);
  });

  it("leaves two copies alone (reduplication is Vietnamese speech)", () => {
    expect(collapseRepetitions("từ từ thôi, rất rất hay")).toBe("từ từ thôi, rất rất hay");
  });

  it("keeps tones apart: Vietnamese words that differ only by diacritics are not repeats", () => {
    expect(collapseRepetitions("ba bà bá bả")).toBe("ba bà bá bả");
    expect(collapseRepetitions("ma ma ma")).toBe("ma");
  });

  it("compares case- and edge-punctuation-insensitively, keeping the last copy's punctuation", () => {
    expect(collapseRepetitions("No, no, no. Then we left.")).toBe("No. Then we left.");
    expect(collapseRepetitions("Thank you. thank you, Thank you!")).toBe("Thank you!");
  });

  it("collapses character loops in scripts without spaces", () => {
    expect(collapseRepetitions("谢谢。谢谢。谢谢。谢谢。")).toBe("谢谢。");
    expect(
      collapseRepetitions(
        "ご視聴ありがとうございました ご視聴ありがとうございました ご視聴ありがとうございました",
      ),
    ).toBe("ご視聴ありがとうございました");
    expect(collapseRepetitions("好好学习")).toBe("好好学习");
  });

  it("repeats until stable", () => {
    expect(collapseRepetitions("a a a b a a a b a a a b")).toBe("a b");
  });

  it("takes minRepeats and maxN options", () => {
    expect(collapseRepetitions("rất rất hay", { minRepeats: 2 })).toBe("rất hay");
    expect(collapseRepetitions("one two one two one two", { maxN: 1 })).toBe("one two one two one two");
  });
});

describe("collapseRepeatedSegments", () => {
  const seg = (start: number, text: string) => ({ start, end: start + 2, text });

  it("collapses a looping segment into its first copy spanning the whole loop", () => {
    const out = collapseRepeatedSegments([
      seg(0, " Xin chào."),
      seg(2, " Cảm ơn các bạn."),
      seg(4, " Cảm ơn các bạn."),
      seg(6, " cảm ơn các bạn"),
      seg(8, " Cảm ơn các bạn!"),
      seg(10, " Tạm biệt."),
    ]);
    expect(out).toEqual([
      seg(0, " Xin chào."),
      { start: 2, end: 10, text: " Cảm ơn các bạn." },
      seg(10, " Tạm biệt."),
    ]);
  });

  it("collapses a cycle of two segments", () => {
    const out = collapseRepeatedSegments([
      seg(0, "A."),
      seg(2, "B."),
      seg(4, "A."),
      seg(6, "B."),
      seg(8, "A."),
      seg(10, "B."),
    ]);
    expect(out).toEqual([seg(0, "A."), { start: 2, end: 12, text: "B." }]);
  });

  it("keeps two identical segments in a row and keeps extra fields", () => {
    const two = [
      { ...seg(0, "Yes."), speaker: "SPEAKER_00" },
      { ...seg(2, "Yes."), speaker: "SPEAKER_01" },
    ];
    expect(collapseRepeatedSegments(two)).toEqual(two);
  });
});

describe("looped", () => {
  it("is true for a window stuck in a loop", () => {
    expect(looped("Hẹn gặp lại các bạn. Hẹn gặp lại các bạn. Hẹn gặp lại các bạn.")).toBe(true);
    expect(looped("the the the the the the")).toBe(true);
    expect(looped("谢谢谢谢谢谢")).toBe(true);
  });

  it("is false for ordinary speech and short emphatic repeats", () => {
    expect(looped("Hôm nay chúng ta sẽ nói về kinh tế Việt Nam.")).toBe(false);
    expect(looped("No no no, that's not what I meant.")).toBe(false);
    expect(looped("")).toBe(false);
  });

  it("is true when the text compresses past whisper's 2.4 threshold without an exact run", () => {
    const text = Array.from({ length: 12 }, (_, i) => `tôi sẽ đi chợ mua rau số ${i % 2}`).join(" và ");
    expect(compressionRatio(text)).toBeGreaterThan(2.4);
    expect(looped(text)).toBe(true);
  });
});

describe("compressionRatio", () => {
  it("is low for normal text and high for degenerate text", () => {
    expect(compressionRatio("")).toBe(0);
    expect(compressionRatio("Chúng tôi đã làm việc cả ngày hôm qua ở văn phòng.")).toBeLessThan(1.5);
    expect(compressionRatio("la ".repeat(100))).toBeGreaterThan(10);
  });
});
