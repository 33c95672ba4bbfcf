/** Key terms of English sentences: numbers, names and nouns, never a verb or an adjective. */
import { describe, expect, it } from "vitest";
import { keyTerms, lowerCaseWords } from "../../inference-node/content/keywords.ts";
import { BLANK, extractiveQuestions } from "../../inference-node/content/quiz.ts";

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
    expect(terms("Oxygen is released as a by-product.")).toEqual(["oxygen/word", "by-product/word"]);
    // A word the lexicon does not know keeps its capital: it may be a name the tagger missed...
    expect(terms("Chlorophyll absorbs light energy.")).toEqual(["Chlorophyll/word", "energy/word"]);
    expect(terms("Saigon fell on April 30, 1975.")).toContain("Saigon/word");
    expect(terms("Britain's demand for Chinese tea drained its silver.")).toContain("Britain's/word");
    // ...unless the note writes it in lower case elsewhere.
    expect(
      keyTerms("Chlorophyll absorbs light energy.", "en", lowerCaseWords(["Leaves hold chlorophyll."]))[0],
    ).toEqual({
      text: "chlorophyll",
      written: "Chlorophyll",
      kind: "word",
    });
    // Lower-cased to read on its own, and found in its sentence as written.
    expect(keyTerms("Oxygen is released.", "en")[0]).toEqual({
      text: "oxygen",
      written: "Oxygen",
      kind: "word",
    });
    const acronym = keyTerms("UNESCO lists the limestone islands.", "en");
    expect(acronym.map((t) => t.written)).toContain("UNESCO");
    for (const term of acronym) expect(term.text).toBe(term.written);
    expect(terms("Vietnam exports rice to many countries.")).toEqual(["Vietnam/name", "countries/word"]);
    // A verb or a function word opening a sentence is not offered.
    expect(terms("Without water, most plants wilt within days.")).toEqual(["water/word", "plants/word"]);
    expect(terms("Because rivers flood, farmers build levees.")).toEqual([
      "rivers/word",
      "farmers/word",
      "levees/word",
    ]);
  });

  it("gives a quiz no option capitalised only because it opened its sentence (it would give the answer away)", () => {
    const sentences = [
      "Photosynthesis is the process by which green plants use sunlight to make food from carbon dioxide and water.",
      "It happens in the chloroplasts of leaf cells.",
      "Chlorophyll absorbs light energy.",
      "Oxygen is released as a by-product.",
      "The glucose made is used for growth and energy.",
      "Without photosynthesis, life on Earth would not exist as we know it.",
    ];
    const questions = extractiveQuestions(sentences, "en", 5, "note-photosynthesis");
    expect(questions.length).toBeGreaterThanOrEqual(3);
    for (const q of questions) {
      expect(q.question).toContain(BLANK);
      for (const option of q.options)
        expect(option === "Earth" || /^\p{Ll}/u.test(option), option).toBe(true);
    }
    // A sentence-opening noun is asked for, blanked where it is written.
    expect(questions.some((q) => q.question.startsWith(BLANK))).toBe(true);
  });
});
