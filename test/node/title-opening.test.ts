/** A note's title as narration says it: whole, or, cut from the note's opening, what the note is about. */
import { describe, expect, it } from "vitest";
import { spokenTitle, titleWordsOpening } from "../../inference-node/content/title-opening.ts";
import { ENGLISH_NOTE, VIETNAMESE_NOTE } from "./content-helpers.ts";

const PHOTOSYNTHESIS =
  "Photosynthesis is the process by which green plants use sunlight to make food from carbon dioxide and water. " +
  "It happens in the chloroplasts of leaf cells.";

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
    const cut = "Photosynthesis is the process by which green plants use sunlight…";
    expect(spokenTitle({ ...ENGLISH_NOTE, title: cut, content: PHOTOSYNTHESIS })).toBe("photosynthesis");
    expect(spokenTitle({ ...ENGLISH_NOTE, title: "", content: PHOTOSYNTHESIS })).toBe("photosynthesis");
    expect(spokenTitle({ ...VIETNAMESE_NOTE, title: "" })).toBe("Sông Mê Kông");
    // A cut title that is not the opening (the note was edited) is still the title.
    expect(spokenTitle({ ...ENGLISH_NOTE, title: "Rivers of Asia and…", content: PHOTOSYNTHESIS })).toBe(
      "Rivers of Asia and…",
    );
    expect(spokenTitle({ ...ENGLISH_NOTE, title: "", content: "It is 42." })).toBeNull();
  });
});
