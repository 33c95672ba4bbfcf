import { describe, expect, it } from "vitest";
import { LANGUAGES, languageName, normalizeLanguage } from "../../protocol/languages.ts";

describe("normalizeLanguage", () => {
  it("covers every language whisper knows", () => {
    expect(Object.keys(LANGUAGES)).toHaveLength(100);
    expect(LANGUAGES.vi).toBe("Vietnamese");
    expect(LANGUAGES.yue).toBe("Cantonese");
    expect(LANGUAGES.ht).toBe("Haitian Creole");
  });

  it("accepts short codes, codes with a region, names in any case and aliases", () => {
    for (const [input, code] of [
      ["vi", "vi"],
      ["VI", "vi"],
      ["Vietnamese", "vi"],
      ["vietnamese", "vi"],
      ["en", "en"],
      ["English", "en"],
      ["en-US", "en"],
      ["zh-CN", "zh"],
      ["zh_TW", "zh"],
      ["Mandarin", "zh"],
      ["ja", "ja"],
      ["Japanese", "ja"],
      ["ko", "ko"],
      ["Haitian Creole", "ht"],
      ["haw", "haw"],
      ["jv", "jw"],
      [" fr ", "fr"],
    ] as const) {
      expect(normalizeLanguage(input), input).toMatchObject({ kind: "language", code });
    }
    expect(normalizeLanguage("vi")).toEqual({ kind: "language", code: "vi", name: "Vietnamese" });
  });

  it("reads null, empty and auto as auto-detect", () => {
    for (const input of [null, undefined, "", "  ", "auto", "AUTO"]) {
      expect(normalizeLanguage(input)).toEqual({ kind: "auto" });
    }
  });

  it("names what it does not support", () => {
    for (const input of ["xx", "Klingon", "toString", "constructor", "zz-CN", "e"]) {
      expect(normalizeLanguage(input)).toEqual({ kind: "unsupported", input });
    }
  });
});

describe("languageName", () => {
  it("gives the Title-case name of a code", () => {
    expect(languageName("vi")).toBe("Vietnamese");
    expect(languageName("zh")).toBe("Chinese");
    expect(languageName("nope")).toBeUndefined();
    expect(languageName("hasOwnProperty")).toBeUndefined();
  });
});
