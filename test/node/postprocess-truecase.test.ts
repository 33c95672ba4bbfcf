import { describe, expect, it } from "vitest";
import {
  endsSentence,
  normalizeSpacing,
  sentenceCase,
  truecase,
} from "../../protocol/postprocess/truecase.ts";

describe("normalizeSpacing", () => {
  it("collapses whitespace and removes spaces before punctuation", () => {
    expect(normalizeSpacing("  Xin   chào ,\n các bạn  . ")).toBe("Xin chào, các bạn.");
    expect(normalizeSpacing("Wait ; what ? Really !")).toBe("Wait; what? Really!");
  });

  it("puts one space after punctuation before a word", () => {
    expect(normalizeSpacing("Xin chào,các bạn!Hôm nay")).toBe("Xin chào, các bạn! Hôm nay");
    expect(normalizeSpacing("Lưu ý:mang theo áo mưa")).toBe("Lưu ý: mang theo áo mưa");
    expect(normalizeSpacing("xin chào các bạn .hôm nay")).toBe("xin chào các bạn. hôm nay");
  });

  it("leaves abbreviations with capitals whole", () => {
    expect(normalizeSpacing("Tôi ở TP.HCM, anh ở U.S.A")).toBe("Tôi ở TP.HCM, anh ở U.S.A");
    expect(normalizeSpacing("hết rồi.Bây giờ thì sao?Ừ")).toBe("hết rồi. Bây giờ thì sao? Ừ");
  });

  it("leaves numbers, times and domains whole", () => {
    expect(normalizeSpacing("Giá 3.14 lúc 10:30, tổng 1,000 đồng, xem amara.org")).toBe(
      "Giá 3.14 lúc 10:30, tổng 1,000 đồng, xem amara.org",
    );
  });

  it("removes spaces inside brackets and quotes", () => {
    expect(normalizeSpacing("Hôm nay ( thứ hai ) anh ấy nói “ xin chào ” rồi [ cười ]")).toBe(
      "Hôm nay (thứ hai) anh ấy nói “xin chào” rồi [cười]",
    );
    expect(normalizeSpacing('He said " hello there " and " bye "')).toBe('He said "hello there" and "bye"');
  });

  it("composes decomposed Vietnamese (NFD in, NFC out)", () => {
    const nfd = "Tiếng Việt".normalize("NFD");
    expect(normalizeSpacing(nfd)).toBe("Tiếng Việt".normalize("NFC"));
  });
});

describe("sentenceCase", () => {
  it("capitalizes Vietnamese sentence starts with composed diacritics", () => {
    expect(sentenceCase("đây là hà nội. ưu tiên hàng đầu! ấy vậy mà? ơn trời… ừ")).toBe(
      "Đây là hà nội. Ưu tiên hàng đầu! Ấy vậy mà? Ơn trời… Ừ",
    );
  });

  it("capitalizes decomposed input after composing it", () => {
    expect(sentenceCase("ấm áp".normalize("NFD"))).toBe("Ấm áp");
  });

  it("keeps existing capitals of proper nouns and does not lowercase", () => {
    expect(sentenceCase("tôi sống ở Hà Nội. còn anh ở TP.HCM")).toBe("Tôi sống ở Hà Nội. Còn anh ở TP.HCM");
  });

  it("looks through opening quotes and brackets, not through numbers", () => {
    expect(sentenceCase("xong. “ồ, thật sao?” (đúng vậy)")).toBe("Xong. “Ồ, thật sao?” (Đúng vậy)");
    expect(sentenceCase("xong. 2024 là năm tốt")).toBe("Xong. 2024 là năm tốt");
  });

  it("does not treat abbreviations as sentence ends", () => {
    expect(sentenceCase("táo, cam, v.v. và nhiều loại khác")).toBe("Táo, cam, v.v. và nhiều loại khác");
  });

  it("leaves a continuing segment's first word alone", () => {
    expect(sentenceCase("và sau đó chúng tôi về nhà. hết", false)).toBe("và sau đó chúng tôi về nhà. Hết");
  });
});

describe("endsSentence", () => {
  it("sees . ! ? … and closing quotes", () => {
    expect(endsSentence("Xong.")).toBe(true);
    expect(endsSentence("Thật sao?”")).toBe(true);
    expect(endsSentence("Để xem…")).toBe(true);
    expect(endsSentence("và thế là")).toBe(false);
    expect(endsSentence("cam, v.v.")).toBe(false);
  });
});

describe("truecase", () => {
  it("capitalizes Vietnamese, cleans spacing for every language", () => {
    expect(truecase("  xin chào các bạn .hôm nay  trời đẹp ", "vi")).toBe(
      "Xin chào các bạn. Hôm nay trời đẹp",
    );
    expect(truecase("see you ,then. bye", "en")).toBe("see you, then. bye");
    expect(truecase("thank you .", "en")).toBe("thank you.");
  });

  it("accepts region-tagged codes", () => {
    expect(truecase("đúng rồi", "vi-VN")).toBe("Đúng rồi");
  });
});
