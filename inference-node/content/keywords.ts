/**
 * Extractive text statistics without a model: TextRank over sentences (tf-idf cosine similarity)
 * and candidate key terms (numbers, capitalised names, content words) for cloze questions.
 */
import { englishWordClasses, isKnownCommonWord } from "./english-nouns.ts";
import { splitWords, termOf } from "./text.ts";

const STOPWORDS_BY_LANGUAGE: Readonly<Record<"en" | "vi", ReadonlySet<string>>> = {
  en: new Set(
    (
      "a an the and or but if of to in on at by for with from as is are was were be been being it its this that these those " +
      "he she they we you i his her their our your them us there here which who whom what when where why how not no nor so " +
      "than then too very can will would should could may might must do does did done has have had having also into about " +
      "over under after before between through during each other some such more most many much any all both only own same " +
      "just one two up down out off again further once because while until against above below"
    ).split(" "),
  ),
  vi: new Set(
    (
      "là của và các những một có được trong cho với không này đã để người khi từ theo về cũng như thì ra đến nhiều lại sẽ " +
      "đó nào mà nhưng hay hoặc vì nên nếu rất đang bị do tại trên dưới sau trước giữa cả mỗi chỉ còn vẫn thể"
    ).split(" "),
  ),
};
const ANY_STOPWORD = new Set([...STOPWORDS_BY_LANGUAGE.en, ...STOPWORDS_BY_LANGUAGE.vi]);

/** A function word of `language` (of either language when not given: sentence ranking mixes them). */
export const isStopword = (term: string, language?: "en" | "vi") =>
  (language ? STOPWORDS_BY_LANGUAGE[language] : ANY_STOPWORD).has(term);

function termVector(sentence: string, idf: Map<string, number>): Map<string, number> {
  const vector = new Map<string, number>();
  for (const word of splitWords(sentence)) {
    const term = termOf(word);
    if (!term || isStopword(term)) continue;
    vector.set(term, (vector.get(term) ?? 0) + (idf.get(term) ?? 1));
  }
  return vector;
}

function cosine(a: Map<string, number>, b: Map<string, number>): number {
  let dot = 0;
  for (const [term, weight] of a) dot += weight * (b.get(term) ?? 0);
  const norm = (v: Map<string, number>) => Math.sqrt([...v.values()].reduce((s, x) => s + x * x, 0));
  const denominator = norm(a) * norm(b);
  return denominator > 0 ? dot / denominator : 0;
}

/** Inverse document frequency of each term, sentences as documents. */
export function inverseFrequencies(sentences: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const sentence of sentences) {
    for (const term of new Set(splitWords(sentence).map(termOf)))
      counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  const idf = new Map<string, number>();
  for (const [term, count] of counts) idf.set(term, Math.log(1 + sentences.length / count));
  return idf;
}

/**
 * TextRank centrality of each sentence (higher = more representative of the note), with a small
 * lead bonus: notes tend to open with their point.
 *
 * @example
 * rankSentences(["Rivers carry water.", "The Mekong is a river.", "Cats sleep."]); // [0.4, 0.45, 0.15]-ish
 */
export function rankSentences(sentences: readonly string[]): number[] {
  const n = sentences.length;
  if (n === 0) return [];
  const idf = inverseFrequencies(sentences);
  const vectors = sentences.map((s) => termVector(s, idf));
  const weights = vectors.map((a, i) => vectors.map((b, j) => (i === j ? 0 : cosine(a, b))));
  const outSums = weights.map((row) => row.reduce((s, x) => s + x, 0));
  let scores: number[] = new Array(n).fill(1 / n);
  for (let iteration = 0; iteration < 40; iteration += 1) {
    scores = scores.map((_, i) => {
      let incoming = 0;
      for (let j = 0; j < n; j += 1) {
        const out = outSums[j] ?? 0;
        if (out > 0) incoming += ((weights[j]?.[i] ?? 0) / out) * (scores[j] ?? 0);
      }
      return 0.15 / n + 0.85 * incoming;
    });
  }
  return scores.map((score, i) => score * (i === 0 ? 1.3 : 1) + (vectors[i]?.size ? 0 : -1));
}

/** A word without the punctuation around it. */
const bare = (word: string) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");

/**
 * The words a text writes in lower case somewhere (as termOf): evidence that a capitalised one opening
 * a sentence is a common word, not a name.
 *
 * @example lowerCaseWords(["Photosynthesis feeds plants.", "Without photosynthesis, nothing grows."]).has("photosynthesis") // true
 */
export function lowerCaseWords(sentences: readonly string[]): Set<string> {
  const words = new Set<string>();
  for (const sentence of sentences)
    for (const word of splitWords(sentence)) if (/^\p{Ll}/u.test(bare(word))) words.add(termOf(word));
  return words;
}

export type TermKind = "number" | "name" | "word";

export interface KeyTerm {
  /**
   * As it reads on its own: as written ("South China Sea", "1,000"), except that a word capitalised
   * only because it opens the sentence is lower-cased ("Oxygen" → "oxygen"). An option or a podcast
   * question capitalised that way would stand out among the others.
   */
  text: string;
  /** As written in the sentence, to find or blank it there. */
  written: string;
  kind: TermKind;
}

const isCapitalised = (word: string) => /^\p{Lu}/u.test(word);

/**
 * Candidate answers in a sentence: numbers, runs of capitalised words (names; the sentence's first
 * word only as part of a longer run), and content words: for English, nouns of 5 letters or more
 * (the first word too), for Vietnamese, two-syllable pairs.
 *
 * A noun opening an English sentence is lower-cased as its `text` when it is a common word: one the
 * note writes in lower case elsewhere (`lowerCaseWords`, "Photosynthesis is…" beside "without
 * photosynthesis"), or one compromise's lexicon knows ("Oxygen"). Otherwise it may be a name
 * ("Saigon fell in 1975") and stays as written.
 *
 * @example
 * keyTerms("The Mekong flows through 6 countries.", "en");
 * // [{ text: "6", written: "6", kind: "number" }, { text: "Mekong", ... "name" }, { text: "countries", ... "word" }]
 */
export function keyTerms(
  sentence: string,
  language: "en" | "vi",
  lowerCased: ReadonlySet<string> = new Set(),
): KeyTerm[] {
  const words = splitWords(sentence);
  const terms: KeyTerm[] = [];
  const add = (written: string, kind: TermKind, text = written) => {
    if (written && !terms.some((t) => t.written === written)) terms.push({ text, written, kind });
  };
  for (const word of words) if (/\p{N}/u.test(word)) add(bare(word), "number");
  for (let i = 0; i < words.length; ) {
    let j = i;
    while (j < words.length && isCapitalised(words[j] ?? "") && !/\p{N}/u.test(words[j] ?? "")) {
      j += 1;
      if (/[,.;:!?]$/.test(words[j - 1] ?? "")) break;
    }
    // "The Mekong" asks for "Mekong": a leading function word stays in the question.
    let from = i;
    while (from < j - 1 && isStopword(termOf(words[from] ?? ""), language)) from += 1;
    const run = words.slice(from, j).map(bare);
    if (run.length > 1 || (run.length === 1 && from > 0 && !isStopword(termOf(run[0] ?? ""), language)))
      add(run.join(" "), "name");
    i = Math.max(j, i + 1);
  }
  const isContent = (w: string) =>
    Boolean(w) && !isStopword(termOf(w), language) && !/\p{N}/u.test(w) && !isCapitalised(w);
  if (language === "vi") {
    // Vietnamese words are mostly two syllables: pair adjacent content syllables of one clause.
    for (let i = 0; i + 1 < words.length; i += 1) {
      const [a, b] = [words[i] ?? "", words[i + 1] ?? ""];
      if (/[,.;:!?]$/.test(a) || !isContent(bare(a)) || !isContent(bare(b))) continue;
      add(`${bare(a)} ${bare(b)}`, "word");
      i += 1;
    }
  } else {
    // Nouns only, by the tagger. The sentence's first word is capitalised whatever it is: a common
    // noun there ("Oxygen is released") is a word, a proper one ("Vietnam exports rice") a name.
    const classes = englishWordClasses(sentence);
    for (const [i, word] of words.map(bare).entries()) {
      const { noun, proper } = classes[i] ?? { noun: false, proper: false };
      if (!noun || word.length < 5) continue;
      if (isContent(word)) add(word, "word");
      else if (i === 0 && !isStopword(termOf(word), language) && !/\p{N}/u.test(word)) {
        const common = lowerCased.has(termOf(word)) || isKnownCommonWord(word);
        if (proper) add(word, "name");
        else add(word, "word", common && /^\p{Lu}\p{Ll}+$/u.test(word) ? word.toLowerCase() : word);
      }
    }
  }
  return terms;
}
