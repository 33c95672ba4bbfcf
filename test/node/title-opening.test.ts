/** A note's title as narration says it: whole, or, cut from the note's opening, what the note is about. */
import { describe, expect, it } from "vitest";
import { spokenTitle, titleWordsOpening } from "../../inference-node/content/title-opening.ts";
import { ENGLISH_NOTE, UNTITLED_NOTE_EN, VIETNAMESE_NOTE } from "./content-helpers.ts";

const PHOTOSYNTHESIS = UNTITLED_NOTE_EN.content;

describe("titleWordsOpening", () => {
  it("counts the opening words that repeat the whole title, case and punctuation aside", () => {
    expect(
      titleWordsOpening("Photosynthesis is the process by which green plants use sunlight…", PHOTOSYNTHESIS),
    ).toBe(10);
    expect(titleWordsOpening("The Mekong", "The Mekong, a long river, floods.")).toBe(2);
    expect(titleWordsOpening("Rivers of Asia", "Rivers of Europe are shorter.")).toBe(0);
    expect(titleWordsOpening("", "Anything.")).toBe(0);
  });
});

describe("spokenTitle", () => {
  it("says a title of the note's own as it is", () => {
    expect(spokenTitle(ENGLISH_NOTE)).toBe("The Mekong River");
    expect(spokenTitle({ ...ENGLISH_NOTE, title: "Photosynthesis", content: PHOTOSYNTHESIS })).toBe(
      "Photosynthesis",
    );
  });

  it("says the opening's first term for a title cut from the opening, or for none", () => {
    expect(spokenTitle(UNTITLED_NOTE_EN)).toBe("photosynthesis");
    expect(spokenTitle({ ...ENGLISH_NOTE, title: "", content: PHOTOSYNTHESIS })).toBe("photosynthesis");
    // Lower case only as the note writes it ("Without photosynthesis, …"): otherwise it may be a name.
    const once = PHOTOSYNTHESIS.replace(/ Without photosynthesis.*$/, "");
    expect(spokenTitle({ ...UNTITLED_NOTE_EN, content: once })).toBe("Photosynthesis");
    expect(spokenTitle({ ...VIETNAMESE_NOTE, title: "" })).toBe("Sông Mê Kông");
    // A cut title that is not the opening (the note was edited) is still the title.
    expect(spokenTitle({ ...ENGLISH_NOTE, title: "Rivers of Asia and…", content: PHOTOSYNTHESIS })).toBe(
      "Rivers of Asia and…",
    );
    expect(spokenTitle({ ...ENGLISH_NOTE, title: "", content: "It is 42." })).toBeNull();
  });
});
