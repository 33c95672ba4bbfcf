/**
 * Group `truecase`: Vietnamese casing of lower-case transcripts (as whisper often writes them). Each
 * sentence of bench/truecase-set.ts is lower-cased and cased again by ours (`truecase`, with proper
 * nouns) and by the reference, the sentence-start rule it replaced (`normalizeSpacing` then
 * `sentenceCase`). Figures: the share of words cased exactly as written in the set, overall and per
 * kind of sentence, sentences right in full, sentences ours made worse, words it made wrong, and the
 * time per sentence.
 * Sentences still wrong are printed with the three versions (stderr).
 */
import { normalizeSpacing, sentenceCase, truecase } from "../protocol/postprocess/truecase.ts";
import { median } from "./stats.ts";
import { type CasedSentence, TRUECASE_SET } from "./truecase-set.ts";
import { type BenchGroup, type BenchResult, result } from "./types.ts";

const TIMING_ROUNDS = 5;

const ours = (text: string): string => truecase(text, "vi");
const reference = (text: string): string => sentenceCase(normalizeSpacing(text));

/** Whether each word of `cased` equals the set's word at the same place. */
function rightWords(cased: string, gold: string): boolean[] {
  const goldWords = gold.split(" ");
  return cased.split(" ").map((word, i) => word === goldWords[i]);
}

const count = (flags: boolean[]): number => flags.filter(Boolean).length;

interface Scored {
  sentence: CasedSentence;
  words: number;
  ours: string;
  reference: string;
  oursRight: number;
  referenceRight: number;
  /** Words the reference had right and ours has wrong. */
  madeWrong: number;
}

function score(sentence: CasedSentence): Scored {
  const input = sentence.text.toLowerCase();
  const cased = { ours: ours(input), reference: reference(input) };
  const oursRight = rightWords(cased.ours, sentence.text);
  const referenceRight = rightWords(cased.reference, sentence.text);
  return {
    sentence,
    words: sentence.text.split(" ").length,
    ...cased,
    oursRight: count(oursRight),
    referenceRight: count(referenceRight),
    madeWrong: referenceRight.filter((right, i) => right && !oursRight[i]).length,
  };
}

const percent = (part: number, whole: number): number => (whole ? (100 * part) / whole : 0);
const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);

/** Median microseconds per sentence of each casing, interleaved over {@link TIMING_ROUNDS} rounds. */
function timePerSentence(inputs: string[]): { ours: number; reference: number } {
  const runs = { ours: [] as number[], reference: [] as number[] };
  for (let round = 0; round < TIMING_ROUNDS; round++) {
    for (const [name, cased] of [
      ["ours", ours],
      ["reference", reference],
    ] as const) {
      const started = performance.now();
      for (const input of inputs) cased(input);
      runs[name].push(((performance.now() - started) * 1000) / inputs.length);
    }
  }
  return { ours: median(runs.ours), reference: median(runs.reference) };
}

export const truecaseGroup: BenchGroup = async () => {
  const scored = TRUECASE_SET.map(score);
  for (const s of scored.filter((s) => s.oursRight < s.words)) {
    console.error(
      `truecase: [${s.sentence.kind}] set:       ${s.sentence.text}\n` +
        `          ours:      ${s.ours}\n          reference: ${s.reference}`,
    );
  }
  const words = sum(scored.map((s) => s.words));
  const worse = scored.filter((s) => s.oursRight < s.referenceRight).length;
  const results: BenchResult[] = [
    result(
      "truecase.words_right_pct",
      percent(sum(scored.map((s) => s.oursRight)), words),
      percent(sum(scored.map((s) => s.referenceRight)), words),
      "%",
      `${scored.length} sentences, ${words} words, lower-cased; reference = sentence starts only; target >= 95 %`,
    ),
    result(
      "truecase.sentences_right",
      scored.filter((s) => s.oursRight === s.words).length,
      scored.filter((s) => s.referenceRight === s.words).length,
      "sentences",
      `every word as written, of ${scored.length}`,
    ),
    result(
      "truecase.sentences_worse",
      worse,
      null,
      "sentences",
      "fewer words right than the reference; target 0",
    ),
    result(
      "truecase.words_made_wrong",
      sum(scored.map((s) => s.madeWrong)),
      null,
      "words",
      "right in the reference, wrong in ours (over-capitalised)",
    ),
  ];
  const heldOut = scored.filter((s) => s.sentence.heldOut);
  const heldOutWords = sum(heldOut.map((s) => s.words));
  results.push(
    result(
      "truecase.words_right_pct.held_out",
      percent(sum(heldOut.map((s) => s.oursRight)), heldOutWords),
      percent(sum(heldOut.map((s) => s.referenceRight)), heldOutWords),
      "%",
      `${heldOut.length} sentences written after the rules, ${heldOutWords} words`,
    ),
  );
  const kinds = [...new Set(scored.map((s) => s.sentence.kind))];
  for (const kind of kinds) {
    const ofKind = scored.filter((s) => s.sentence.kind === kind);
    const kindWords = sum(ofKind.map((s) => s.words));
    results.push(
      result(
        `truecase.words_right_pct.${kind}`,
        percent(sum(ofKind.map((s) => s.oursRight)), kindWords),
        percent(sum(ofKind.map((s) => s.referenceRight)), kindWords),
        "%",
        `${ofKind.length} sentences, ${kindWords} words`,
      ),
    );
  }
  const timing = timePerSentence(scored.map((s) => s.sentence.text.toLowerCase()));
  results.push(
    result(
      "truecase.us_per_sentence",
      timing.ours,
      timing.reference,
      "µs",
      `median of ${TIMING_ROUNDS} interleaved rounds over the set; lexicon loaded before`,
    ),
  );
  return results;
};
