import { describe, expect, it } from "vitest";
import { needsNoteTranslation, noteInLanguage } from "../../inference-node/content/note-in-language.ts";
import type { TranslateFn } from "../../inference-node/content/script.ts";

const note = {
  note_id: "n1",
  title: "Sông Mê Kông",
  content: "# Tổng quan\n\n- Sông dài 4.350 km.",
  language: "vi",
};
const upper: TranslateFn = async (text, from, to) => `[${from}>${to}] ${text.toUpperCase()}`;

describe("noteInLanguage", () => {
  it("keeps the note as it is when no language or its own is asked, resolving its language", async () => {
    const signal = new AbortController().signal;
    expect(await noteInLanguage(note, null, upper, signal)).toEqual({ ...note, language: "vi" });
    expect(await noteInLanguage(note, "vi", upper, signal)).toEqual({ ...note, language: "vi" });
    expect(needsNoteTranslation(note, "vi")).toBe(false);
    expect(needsNoteTranslation(note, null)).toBe(false);
  });

  it("translates title and content line by line into another language, keeping the markup", async () => {
    const signal = new AbortController().signal;
    expect(needsNoteTranslation(note, "en")).toBe(true);
    const english = await noteInLanguage(note, "en", upper, signal);
    expect(english.language).toBe("en");
    expect(english.title).toBe("[vi>en] SÔNG MÊ KÔNG");
    expect(english.content).toBe("# [vi>en] TỔNG QUAN\n\n- [vi>en] SÔNG DÀI 4.350 KM.");
  });

  it("fails translation_unavailable when the node has no translator for another language", async () => {
    await expect(noteInLanguage(note, "en", undefined, new AbortController().signal)).rejects.toMatchObject({
      code: "translation_unavailable",
    });
  });
});
