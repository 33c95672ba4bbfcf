import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outlineDeck, translateOutline } from "../../inference-node/content/deck.ts";
import { ContentError } from "../../inference-node/content/errors.ts";
import {
  ExtractiveQuizWriter,
  extractiveQuestions,
  optionsAreDistinct,
} from "../../inference-node/content/quiz.ts";
import { ExtractiveScriptWriter, noteSentences, summarize } from "../../inference-node/content/script.ts";
import { foldForCompare, splitPhrases, splitWords } from "../../inference-node/content/text.ts";
import { createTranslator } from "../../inference-node/translate/config.ts";
import { ENGLISH_NOTE, UNTITLED_NOTE_EN, VIETNAMESE_NOTE } from "./content-helpers.ts";
import { type FakeServer, libreTranslateHandler, startServer } from "./translate-fake-servers.ts";

const signal = new AbortController().signal;

describe("text helpers", () => {
  it("splits sentences into short caption phrases at clause marks", () => {
    expect(splitPhrases("The Mekong, a long river, flows through six countries of Asia.")).toEqual([
      "The Mekong,",
      "a long river,",
      "flows through six",
      "countries of Asia.",
    ]);
    for (const phrase of splitPhrases(VIETNAMESE_NOTE.content.replace(/#.*\n/g, " "))) {
      expect(splitWords(phrase).length).toBeLessThanOrEqual(4);
      // One word may run past the character limit on its own, never two.
      if (splitWords(phrase).length > 1) expect(phrase.length).toBeLessThanOrEqual(24);
    }
  });

  it("folds case and Vietnamese diacritics for option comparison", () => {
    expect(foldForCompare("Hà Nội")).toBe(foldForCompare("HA NOI"));
    expect(foldForCompare("Đà Nẵng")).toBe("da nang");
    expect(optionsAreDistinct(["Hà Nội", "Huế", "ha noi", "Cần Thơ"])).toBe(false);
    expect(optionsAreDistinct(["Hà Nội", "Huế", "Đà Nẵng", "Cần Thơ"])).toBe(true);
  });
});

describe("narration script", () => {
  it("keeps the highest-ranked sentences in note order within the word budget", () => {
    const sentences = noteSentences(ENGLISH_NOTE);
    const summary = summarize(sentences, 40);
    expect(splitWords(summary.join(" ")).length).toBeLessThanOrEqual(40);
    expect(summary.length).toBeGreaterThanOrEqual(2);
    const positions = summary.map((s) => sentences.indexOf(s));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it("fails note_too_short on a near-empty note", async () => {
    const writer = new ExtractiveScriptWriter();
    const note = { ...ENGLISH_NOTE, content: "Too short." };
    await expect(writer.write({ note, language: "en", maxWords: 50 }, signal)).rejects.toMatchObject({
      code: "note_too_short",
    });
  });

  it("fails translation_unavailable when the voice speaks another language and no translator is set", async () => {
    const writer = new ExtractiveScriptWriter();
    const error = await writer
      .write({ note: VIETNAMESE_NOTE, language: "en", maxWords: 50 }, signal)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContentError);
    expect(error).toMatchObject({ code: "translation_unavailable" });
  });
});

describe("quiz questions", () => {
  it("builds cloze questions whose answer is in the options and whose options never repeat", () => {
    const questions = extractiveQuestions(noteSentences(ENGLISH_NOTE), "en", 5, "seed");
    expect(questions.length).toBeGreaterThanOrEqual(3);
    for (const q of questions) {
      expect(q.options).toHaveLength(4);
      expect(optionsAreDistinct(q.options)).toBe(true);
      expect(q.question).toContain("_____");
      // Filling the blank with the answer gives back the note's sentence (the explanation).
      expect(q.question.replace("_____", q.options[q.answer_index] ?? "")).toBe(q.explanation);
    }
  });

  it("never offers two options that differ only by case or diacritics", async () => {
    const note = {
      note_id: "dups",
      title: "Cities",
      language: "vi",
      content:
        "Thủ đô của Việt Nam là Hà Nội. Người ta cũng viết HA NOI trên bản đồ cũ. Thành phố Huế từng là kinh đô. " +
        "Đà Nẵng nằm ở miền Trung. Cần Thơ là thành phố lớn nhất miền Tây. Nhiều du khách đến Hội An mỗi năm. " +
        "Ha Noi có hơn 8 triệu dân. Hải Phòng là thành phố cảng lớn ở phía Bắc. Nha Trang nổi tiếng với bãi biển đẹp.",
    };
    const questions = await new ExtractiveQuizWriter().write(
      { note, language: "vi", maxQuestions: 5 },
      signal,
    );
    expect(questions.length).toBeGreaterThanOrEqual(3);
    for (const q of questions) expect(new Set(q.options.map(foldForCompare)).size).toBe(4);
  });

  it("fails note_too_short when the note cannot give three questions", async () => {
    const note = {
      ...ENGLISH_NOTE,
      content: "Cats sleep a lot during the day. Dogs like to walk in the park.",
    };
    await expect(
      new ExtractiveQuizWriter().write({ note, language: "en", maxQuestions: 5 }, signal),
    ).rejects.toMatchObject({
      code: "note_too_short",
    });
  });
});

describe("slide outline", () => {
  let libre: FakeServer;
  beforeAll(async () => {
    libre = await startServer(libreTranslateHandler());
  });
  afterAll(async () => {
    await libre.close();
  });

  it.each([
    { min: 1, max: 1 },
    { min: 2, max: 3 },
    { min: 5, max: 8 },
    { min: 6, max: 6 },
  ])("stays within slide_count %o", (range) => {
    const outline = outlineDeck(ENGLISH_NOTE, range, false);
    expect(outline.slides.length).toBeGreaterThanOrEqual(range.min);
    expect(outline.slides.length).toBeLessThanOrEqual(range.max);
    const text = JSON.stringify(outline);
    expect(text).toContain("Mekong");
  });

  it("shortens a long note to the maximum and keeps its section headings", () => {
    const long = {
      ...ENGLISH_NOTE,
      content: `${ENGLISH_NOTE.content}\n\n${ENGLISH_NOTE.content.replaceAll("#", "##")}`.repeat(3),
    };
    const outline = outlineDeck(long, { min: 3, max: 4 }, false);
    expect(outline.slides).toHaveLength(4);
    expect(outline.slides[0]?.kind).toBe("title");
    expect(outline.slides.at(-1)?.kind).toBe("summary");
  });

  it("does not read out a title cut from the note's opening before the first slide says it whole", () => {
    const { title, content } = UNTITLED_NOTE_EN;
    const outline = outlineDeck(UNTITLED_NOTE_EN, { min: 3, max: 4 }, false);
    const [first, second] = outline.slides;
    expect(first).toMatchObject({ kind: "title", title, narration: "Key points from the note." });
    expect(second?.narration.startsWith(content.slice(0, 80))).toBe(true);
    // A title of its own is read out, even when the note opens with it.
    const titled = outlineDeck(
      { ...ENGLISH_NOTE, title: "Photosynthesis", content },
      { min: 3, max: 4 },
      false,
    );
    expect(titled.slides[0]?.narration).toBe("Photosynthesis. Key points from the note.");
  });

  it("fails note_too_short when the note cannot fill the minimum", () => {
    const note = { ...ENGLISH_NOTE, content: "The Mekong is long. It has fish. It floods often." };
    expect(() => outlineDeck(note, { min: 10, max: 12 }, false)).toThrow(
      expect.objectContaining({ code: "note_too_short" }),
    );
  });

  it("translates every slide through the node's translator, and fails without one", async () => {
    const outline = outlineDeck(VIETNAMESE_NOTE, { min: 4, max: 6 }, false);
    await expect(translateOutline(outline, "en", undefined, signal)).rejects.toMatchObject({
      code: "translation_unavailable",
    });
    const translator = createTranslator({ backend: "libretranslate", url: libre.url });
    const translated = await translateOutline(
      outline,
      "en",
      (t, f, to, s) => translator!.translate(t, f, to, s),
      signal,
    );
    expect(translated.language).toBe("en");
    expect(translated.slides).toHaveLength(outline.slides.length);
    const contents = translated.slides.flatMap((s) => (s.kind === "title" ? [] : s.bullets));
    expect(contents.every((b) => b.startsWith("<en>"))).toBe(true);
    expect(libre.requests.every((r) => (r.body as { source: string }).source === "vi")).toBe(true);
  });
});
