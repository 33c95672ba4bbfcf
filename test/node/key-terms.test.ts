/** Key terms of English sentences: numbers, names and nouns, never a verb or an adjective. */
import { describe, expect, it } from "vitest";
import { keyTerms } from "../../inference-node/content/keywords.ts";

const terms = (sentence: string) => keyTerms(sentence, "en").map((t) => `${t.text}/${t.kind}`);

describe("keyTerms (English)", () => {
  it("offers the nouns of a sentence and none of its verbs", () => {
    // Before the tagger: "happens", "absorbs", "released", "exist" were offered as answers.
    expect(terms("It happens in the chloroplasts of leaf cells.")).toEqual([
      "chloroplasts/word",
      "cells/word",
    ]);
    expect(terms("The glucose made is used for growth and energy.")).toEqual([
      "glucose/word",
      "growth/word",
      "energy/word",
    ]);
    expect(terms("Without photosynthesis, life on Earth would not exist as we know it.")).toEqual([
      "Earth/name",
      "photosynthesis/word",
    ]);
    expect(terms("The Mekong flows through 6 countries.")).toEqual([
      "6/number",
      "Mekong/name",
      "countries/word",
    ]);
  });

  it("offers a sentence's first word when it is a noun: a common one as a word, a proper one as a name", () => {
    expect(terms("Oxygen is released as a by-product.")).toEqual(["Oxygen/word", "by-product/word"]);
    expect(terms("Chlorophyll absorbs light energy.")).toEqual(["Chlorophyll/word", "energy/word"]);
    expect(terms("Vietnam exports rice to many countries.")).toEqual(["Vietnam/name", "countries/word"]);
    // A verb or a function word opening a sentence is not offered.
    expect(terms("Without water, most plants wilt within days.")).toEqual(["water/word", "plants/word"]);
    expect(terms("Because rivers flood, farmers build levees.")).toEqual([
      "rivers/word",
      "farmers/word",
      "levees/word",
    ]);
  });
});
