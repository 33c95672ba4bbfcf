import { describe, expect, it } from "vitest";
import { TRUECASE_SET } from "../../bench/truecase-set.ts";
import { normalizeSpacing, sentenceCase, truecase } from "../../protocol/postprocess/truecase.ts";
import { phraseKey, syllableKey } from "../../protocol/postprocess/vi-lexicon.ts";

const vi = (text: string) => truecase(text, "vi");

describe("Vietnamese proper nouns: places", () => {
  it("capitalises provinces, cities and districts of the administrative list", () => {
    expect(vi("tôi sống ở hà nội")).toBe("Tôi sống ở Hà Nội");
    expect(vi("quê tôi ở huyện diễn châu, tỉnh nghệ an")).toBe("Quê tôi ở huyện Diễn Châu, tỉnh Nghệ An");
    expect(vi("từ thành phố hồ chí minh ra phú quốc")).toBe("Từ thành phố Hồ Chí Minh ra Phú Quốc");
    expect(vi("giá đất ở cầu giấy")).toBe("Giá đất ở Cầu Giấy");
  });

  it("matches either tone placement and keeps the speaker's spelling", () => {
    expect(vi("tỉnh khánh hoà và thanh hóa")).toBe("Tỉnh Khánh Hoà và Thanh Hóa");
    expect(syllableKey("Hoà")).toBe(syllableKey("hòa"));
    expect(phraseKey("Thanh  Thuỷ")).toBe(phraseKey("thanh thủy"));
  });

  it("capitalises countries and well-known places of more than one syllable", () => {
    expect(vi("đi trung quốc, thái lan và singapore")).toBe("Đi Trung Quốc, Thái Lan và Singapore");
    expect(vi("nhà ở sài gòn, quê ở tây nguyên")).toBe("Nhà ở Sài Gòn, quê ở Tây Nguyên");
  });

  it("capitalises a one-syllable country only after nước, tiếng, người or đất", () => {
    expect(vi("tôi học tiếng anh và tiếng pháp ở nước pháp")).toBe(
      "Tôi học tiếng Anh và tiếng Pháp ở nước Pháp",
    );
    expect(vi("phương pháp này hay. mặc áo vào")).toBe("Phương pháp này hay. Mặc áo vào");
    expect(vi("người anh của tôi")).toBe("Người anh của tôi");
  });

  it("capitalises a place that is also a common word only after an administrative word, ở or tại", () => {
    expect(vi("một thế giới hòa bình")).toBe("Một thế giới hòa bình");
    expect(vi("bố tôi ở tỉnh hòa bình")).toBe("Bố tôi ở tỉnh Hòa Bình");
    expect(vi("nó cao bằng anh, còn tôi ở cao bằng")).toBe("Nó cao bằng anh, còn tôi ở Cao Bằng");
    expect(vi("tuổi thanh xuân ở quận thanh xuân")).toBe("Tuổi thanh xuân ở quận Thanh Xuân");
  });

  it("lets a province win over a district that overlaps it", () => {
    expect(vi("từ sơn la về đây")).toBe("Từ Sơn La về đây");
    expect(vi("đi qua từ sơn, bắc ninh")).toBe("Đi qua Từ Sơn, Bắc Ninh");
  });

  it("does not capitalise one-syllable places or match across punctuation", () => {
    expect(vi("vinh quang thuộc về các bạn")).toBe("Vinh quang thuộc về các bạn");
    expect(vi("tôi học ở huế")).toBe("Tôi học ở Huế");
    expect(vi("ăn hà, nội thì sao")).toBe("Ăn hà, nội thì sao");
  });
});

describe("Vietnamese proper nouns: organisations and acronyms", () => {
  it("writes acronyms in capitals and organisations with their capitals", () => {
    expect(vi("ubnd phường và hđnd tp.hcm")).toBe("UBND phường và HĐND TP.HCM");
    expect(vi("được unesco công nhận, các nước asean họp")).toBe("Được UNESCO công nhận, các nước ASEAN họp");
    expect(vi("bộ y tế khuyến cáo, quốc hội thông qua")).toBe("Bộ Y tế khuyến cáo, Quốc hội thông qua");
    expect(vi("kỳ thi thpt.")).toBe("Kỳ thi THPT.");
  });
});

describe("Vietnamese proper nouns: full names", () => {
  it("capitalises a family name and its given names", () => {
    expect(vi("ông nguyễn văn an là giám đốc")).toBe("Ông Nguyễn Văn An là giám đốc");
    expect(vi("đường nguyễn thị minh khai")).toBe("Đường Nguyễn Thị Minh Khai");
    expect(vi("cầu thủ nguyễn quang hải ghi bàn")).toBe("Cầu thủ Nguyễn Quang Hải ghi bàn");
  });

  it("takes any word after văn or thị as the given name, but stops at a verb or function word", () => {
    expect(vi("trần thị bưởi và lê văn tám")).toBe("Trần Thị Bưởi và Lê Văn Tám");
    expect(vi("anh nguyễn văn an đi học")).toBe("Anh Nguyễn Văn An đi học");
  });

  it("takes a third given syllable only after two middle names", () => {
    expect(vi("nhạc sĩ trịnh công sơn sáng tác")).toBe("Nhạc sĩ Trịnh Công Sơn sáng tác");
  });

  it("needs a middle name after a family name that is also a common word", () => {
    expect(vi("phạm vi dự án, tăng cường kiểm tra, vũ trụ bao la")).toBe(
      "Phạm vi dự án, tăng cường kiểm tra, vũ trụ bao la",
    );
    expect(vi("hồ sơ, lý do, ngày mai anh đi, vương quốc anh")).toBe(
      "Hồ sơ, lý do, ngày mai anh đi, Vương quốc Anh",
    );
    expect(vi("bà phạm thị hoa và thầy lê văn tám")).toBe("Bà Phạm Thị Hoa và thầy Lê Văn Tám");
  });

  it("capitalises an unambiguous family name alone", () => {
    expect(vi("gặp ông nguyễn ở đó")).toBe("Gặp ông Nguyễn ở đó");
  });
});

describe("Vietnamese proper nouns: names after titles", () => {
  it("capitalises a given name after anh, chị, ông, bà, thầy, cô, bác, chú, em", () => {
    expect(vi("hôm qua tôi gặp anh nam và chị lan")).toBe("Hôm qua tôi gặp anh Nam và chị Lan");
    expect(vi("thầy minh, cô hạnh, em hùng và bác dũng")).toBe("Thầy Minh, cô Hạnh, em Hùng và bác Dũng");
    expect(vi("tôi gọi cho chị ngọc anh")).toBe("Tôi gọi cho chị Ngọc Anh");
  });

  it("leaves pronoun uses of a title in lower case", () => {
    for (const text of [
      "anh ấy nói sẽ đến muộn",
      "cô giáo khen cả lớp",
      "chị em mình lâu rồi mới gặp",
      "ông bà tôi sống ở quê",
      "anh em trong nhóm ai cũng cố gắng",
    ]) {
      expect(vi(text)).toBe(sentenceCase(text));
    }
  });

  it("leaves verbs after a title and words made with the title in lower case", () => {
    for (const text of [
      "anh hiểu ý em rồi",
      "em học xong bài rồi",
      "anh cần gì cứ nói",
      "em thương anh nhiều lắm",
      "chú ý, tàu sắp vào ga",
      "bác sĩ dặn bà uống thuốc",
      "cô đơn quá thì gọi",
      "anh hùng dân tộc",
    ]) {
      expect(vi(text)).toBe(sentenceCase(text));
    }
  });

  it("leaves a given-name syllable that starts a common word with the next one", () => {
    expect(vi("anh bình tĩnh đi, em gửi chị tài liệu")).toBe("Anh bình tĩnh đi, em gửi chị tài liệu");
    expect(vi("anh thanh niên, anh tài xế, em trung thực")).toBe("Anh thanh niên, anh tài xế, em trung thực");
  });

  it("capitalises a birth-order nickname unless a counted word follows", () => {
    expect(vi("chú tư bán hàng, bác ba nói")).toBe("Chú Tư bán hàng, bác Ba nói");
    expect(vi("ông bảy mươi tuổi, chị hai đứa con")).toBe("Ông bảy mươi tuổi, chị hai đứa con");
  });
});

describe("Vietnamese proper nouns: scope", () => {
  it("never lower-cases and leaves other languages alone", () => {
    expect(vi("tôi ở Hà Nội, anh ở HCMC")).toBe("Tôi ở Hà Nội, anh ở HCMC");
    expect(truecase("i live in hà nội", "en")).toBe("i live in hà nội");
  });

  it("cases the bench set at least 95 % right, no sentence worse than sentence starts alone", () => {
    let words = 0;
    let right = 0;
    for (const { text } of TRUECASE_SET) {
      const gold = text.split(" ");
      const rightIn = (cased: string) => cased.split(" ").filter((word, i) => word === gold[i]).length;
      const ours = rightIn(vi(text.toLowerCase()));
      expect(ours, text).toBeGreaterThanOrEqual(rightIn(sentenceCase(normalizeSpacing(text.toLowerCase()))));
      words += gold.length;
      right += ours;
    }
    expect(right / words).toBeGreaterThanOrEqual(0.95);
  });
});
