import { describe, expect, it } from "vitest";
import { isMarkerContent, removeMarkers } from "../../protocol/postprocess/markers.ts";

describe("removeMarkers", () => {
  it("drops English bracketed and parenthesised non-speech markers in any case", () => {
    expect(removeMarkers(" [MUSIC]")).toBe("");
    expect(removeMarkers(" [Music] So today we'll talk about pricing.")).toBe(
      "So today we'll talk about pricing.",
    );
    expect(removeMarkers(" Thank you all (applause) for coming.")).toBe("Thank you all for coming.");
    expect(removeMarkers(" (laughs) That's a good one.")).toBe("That's a good one.");
    expect(removeMarkers("[BLANK_AUDIO]")).toBe("");
    expect(removeMarkers(" [soft music playing]")).toBe("");
    expect(removeMarkers(" (audience laughing) Okay, okay.")).toBe("Okay, okay.");
    expect(removeMarkers(" [speaking Vietnamese]")).toBe("");
    expect(removeMarkers(" *music* Welcome back")).toBe("Welcome back");
  });

  it("drops Vietnamese marker forms", () => {
    expect(removeMarkers(" [Âm nhạc]")).toBe("");
    expect(removeMarkers(" (tiếng vỗ tay) Xin chào tất cả các bạn")).toBe("Xin chào tất cả các bạn");
    expect(removeMarkers(" Hôm nay vui quá (cười)")).toBe("Hôm nay vui quá");
    expect(removeMarkers(" (Cười) [Nhạc nền]")).toBe("");
  });

  it("drops Japanese, Korean and Chinese markers", () => {
    expect(removeMarkers("（拍手）皆さんこんにちは")).toBe("皆さんこんにちは");
    expect(removeMarkers("[음악] 안녕하세요")).toBe("안녕하세요");
    expect(removeMarkers("【音乐】大家好")).toBe("大家好");
  });

  it("drops music-note spans and note-only segments", () => {
    expect(removeMarkers(" ♪ ♪")).toBe("");
    expect(removeMarkers("♪")).toBe("");
    expect(removeMarkers(" ♪ la la la ♪ And we're back.")).toBe("And we're back.");
    expect(removeMarkers("🎵 🎶")).toBe("");
  });

  it("keeps parenthesised speech and ordinary brackets", () => {
    expect(removeMarkers("The figures (see above) show a rise.")).toBe(
      "The figures (see above) show a rise.",
    );
    expect(removeMarkers("Giá tăng (khoảng 10%) so với năm ngoái.")).toBe(
      "Giá tăng (khoảng 10%) so với năm ngoái.",
    );
    expect(removeMarkers("Bên hồ (hồ Gươm) rất đẹp")).toBe("Bên hồ (hồ Gươm) rất đẹp");
    expect(removeMarkers("The (NASA) mission")).toBe("The (NASA) mission");
    expect(removeMarkers("this is *really* important")).toBe("this is *really* important");
  });

  it("drops leaked whisper special tokens and leftover punctuation-only text", () => {
    expect(removeMarkers("<|endoftext|>")).toBe("");
    expect(removeMarkers(" [Music] .")).toBe("");
    expect(removeMarkers("Hello <|nocaptions|> there")).toBe("Hello there");
  });
});

describe("isMarkerContent", () => {
  it("needs a marker head word, not just modifiers", () => {
    expect(isMarkerContent("upbeat music")).toBe(true);
    expect(isMarkerContent("the audience")).toBe(false);
    expect(isMarkerContent("no")).toBe(false);
  });

  it("accepts all-caps tags only in square brackets", () => {
    expect(isMarkerContent("NO SPEECH", true)).toBe(true);
    expect(isMarkerContent("WHO", false)).toBe(false);
  });
});
