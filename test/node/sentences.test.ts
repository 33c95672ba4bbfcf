import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sentenceSpans, splitSentences } from "../../protocol/sentences.ts";

describe("splitSentences", () => {
  it("splits English at . ! ? … and keeps decimals, closing quotes and inner abbreviations", () => {
    expect(splitSentences('It is 3.5 km away. Is it far? "Not at all!" She went on… and on. Done')).toEqual([
      "It is 3.5 km away.",
      "Is it far?",
      '"Not at all!"',
      "She went on… and on.",
      "Done",
    ]);
    expect(splitSentences("We met at 3 p.m. and talked, e.g. about rivers. Then we left.")).toEqual([
      "We met at 3 p.m. and talked, e.g. about rivers.",
      "Then we left.",
    ]);
  });

  it("does not end a sentence at a title or an initial before a name", () => {
    expect(
      splitSentences("Mr. Smith met Dr. Lee. They spoke with J. R. R. Tolkien's editor. St. Louis is far."),
    ).toEqual(["Mr. Smith met Dr. Lee.", "They spoke with J. R. R. Tolkien's editor.", "St. Louis is far."]);
  });

  it("splits Vietnamese, keeping its own abbreviations (TP., GS., TS.)", () => {
    expect(
      splitSentences(
        "Hôm nay trời đẹp. TP. Hồ Chí Minh là thành phố lớn! GS. TS. Nguyễn Văn A giảng bài. Bạn có khỏe không?",
        "vi",
      ),
    ).toEqual([
      "Hôm nay trời đẹp.",
      "TP. Hồ Chí Minh là thành phố lớn!",
      "GS. TS. Nguyễn Văn A giảng bài.",
      "Bạn có khỏe không?",
    ]);
  });

  it("splits full-width CJK punctuation and at line breaks", () => {
    expect(splitSentences("你好。再见！\nA line without a stop\nthe next one")).toEqual([
      "你好。",
      "再见！",
      "A line without a stop",
      "the next one",
    ]);
  });

  it("accepts a region tag and falls back for a tag that is not BCP 47", () => {
    expect(splitSentences("Xin chào. TP. Huế đẹp.", "vi-VN")).toEqual(["Xin chào.", "TP. Huế đẹp."]);
    expect(splitSentences("One. Two.", "not a tag!")).toEqual(["One.", "Two."]);
  });
});

describe("sentenceSpans", () => {
  it("keeps a blank line as the whitespace after a sentence", () => {
    expect(sentenceSpans("One.\n\nTwo?")).toEqual([
      { text: "One.", after: "\n\n" },
      { text: "Two?", after: "" },
    ]);
  });

  it("loses nothing: the spans joined are the input", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom(
            "Mr.",
            "Dr. ",
            "TP.",
            "a",
            "b.",
            " ",
            "\n",
            "?",
            "! ",
            "…",
            "3.5",
            "J. ",
            "。",
            "Xin",
          ),
          {
            maxLength: 40,
          },
        ),
        fc.constantFrom("en", "vi", "ja"),
        (parts, language) => {
          const text = parts.join("");
          expect(
            sentenceSpans(text, language)
              .map((span) => span.text + span.after)
              .join(""),
          ).toBe(text);
        },
      ),
    );
  });
});
