/** A short's narration: its title said once, whether or not the body opens with it. */
import { describe, expect, it } from "vitest";
import { shortNarration } from "../../inference-node/content/short-narration.ts";

describe("shortNarration", () => {
  it("says a title cut from the body's first sentence once, as the body's opening", () => {
    const body =
      "Photosynthesis is the process by which green plants use sunlight to make food. It happens in leaves.";
    expect(shortNarration("Photosynthesis is the process by which green plants use sunlight…", body)).toEqual(
      {
        text: body,
        titleWordCount: 10,
      },
    );
  });

  it("says a title the body opens with once, case and punctuation aside", () => {
    expect(shortNarration("The Mekong", "The Mekong, a long river, floods.")).toEqual({
      text: "The Mekong, a long river, floods.",
      titleWordCount: 2,
    });
    expect(shortNarration("Photosynthesis", "photosynthesis. Plants turn light into sugar")).toEqual({
      text: "photosynthesis. Plants turn light into sugar.",
      titleWordCount: 1,
    });
  });

  it("says any other title first, as a sentence of its own", () => {
    expect(shortNarration("Rivers of Asia", "The Mekong floods every year.")).toEqual({
      text: "Rivers of Asia. The Mekong floods every year.",
      titleWordCount: 3,
    });
    // Sharing the first words is not opening with the title.
    expect(shortNarration("Rivers of Asia", "Rivers of Europe are shorter.")).toEqual({
      text: "Rivers of Asia. Rivers of Europe are shorter.",
      titleWordCount: 3,
    });
    // A body shorter than its title cannot open with it.
    expect(shortNarration("Rivers of Asia today", "Rivers of Asia")).toEqual({
      text: "Rivers of Asia today. Rivers of Asia.",
      titleWordCount: 4,
    });
  });
});
