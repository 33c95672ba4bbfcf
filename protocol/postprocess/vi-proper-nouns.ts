/**
 * Capitals for Vietnamese proper nouns that whisper wrote in lower case. Rules, tried at each word
 * in this order (lexicon and its sources: `vi-lexicon.ts`):
 *
 * 1. Phrases, longest first: places (provinces, districts, countries, well-known places) and
 *    organisations. A place name that is also a common word ("hòa bình", "thanh xuân") only after an
 *    administrative word ("tỉnh", "quận"...); a one-syllable country ("pháp", "anh") only after
 *    "nước", "tiếng", "người" or "đất". One-syllable places other than Huế are never matched.
 *    Acronyms take the lexicon's form ("tp.hcm" → "TP.HCM"), other words only a first capital.
 * 2. Full names: a family name and the given-name syllables after it (at most three). A family name
 *    that is also a common word ("lê", "hồ", "vũ", "phạm") needs a middle name next ("lê văn tám",
 *    "hồ chí minh"); "nguyễn", "phan", "đặng"... stand alone ("ông nguyễn" → "ông Nguyễn").
 * 3. Titles: after "anh, chị, ông, bà, thầy, cô, bác, chú, em..." a given-name syllable is a name
 *    ("anh nam" → "anh Nam"), unless it is mostly a verb there ("anh hiểu", "em học"), makes a word
 *    with the title ("chú ý", "bác sĩ", "anh hùng") or with the next word ("anh bình tĩnh"); a
 *    birth-order nickname is a name unless a counted word follows ("chú tư" → "chú Tư", but "ông bảy
 *    mươi tuổi"). Pronoun uses ("anh ấy", "chị em", "cô giáo") have no name syllable after them.
 *
 * Words are never lower-cased and nothing is matched across punctuation.
 */
import {
  ADMIN_WORDS,
  AMBIGUOUS_FAMILY,
  BIRTH_ORDER,
  COMMON_AFTER_TITLE,
  COUNTED,
  COUNTRY_CONTEXT,
  FAMILY_NAMES,
  GIVEN_NAME_PAIRS,
  type LexiconEntry,
  MAX_PHRASE_SYLLABLES,
  MIDDLE,
  NAME_SYLLABLES,
  NOT_GIVEN_NAME,
  NOT_NAME_AFTER_TITLE,
  PHRASES,
  STRONG_MIDDLE,
  syllableKey,
  TITLE_COMPOUNDS,
  TITLE_WORDS,
} from "./vi-lexicon.ts";

/** A word split into its leading punctuation, the word itself and its trailing punctuation. */
interface Token {
  lead: string;
  core: string;
  trail: string;
  /** {@link syllableKey} of `core`. */
  key: string;
}

/** Given-name syllables after a family name, at most. */
const MAX_GIVEN_SYLLABLES = 3;
/** Family-name-less forms of a country that are titles too ("người anh" is an elder brother). */
const TITLE_COUNTRY_CONTEXT: ReadonlySet<string> = new Set(["nước", "tiếng"].map(syllableKey));

function tokenize(text: string): Token[] {
  return text.split(" ").map((word) => {
    const [, lead = "", core = "", trail = ""] = /^([^\p{L}\p{N}]*)(.*?)([^\p{L}\p{N}]*)$/su.exec(word) ?? [];
    return { lead, core, trail, key: syllableKey(core) };
  });
}

const upperFirst = (word: string): string => {
  const first = String.fromCodePoint(word.codePointAt(0) ?? 0);
  return first.toUpperCase() + word.slice(first.length);
};

/** `word` cased like `form`: an acronym as written, a capitalised word with a first capital. */
function caseLike(word: string, form: string): string {
  const isAcronym = /\p{L}.*\p{L}/su.test(form) && form === form.toUpperCase();
  if (isAcronym) return form;
  return form !== form.toLowerCase() ? upperFirst(word) : word;
}

/** Whether tokens [start, end) are one run of words with no punctuation between them. */
function joined(tokens: readonly Token[], start: number, end: number): boolean {
  if (end > tokens.length) return false;
  for (let i = start; i < end; i++) {
    const token = tokens[i] as Token;
    if (!token.core) return false;
    if (i > start && token.lead) return false;
    if (i < end - 1 && token.trail) return false;
  }
  return true;
}

/** The key of the word before `index` when nothing but a space separates them, else "". */
function keyBefore(tokens: readonly Token[], index: number): string {
  const previous = tokens[index - 1];
  const current = tokens[index];
  return previous && !previous.trail && !current?.lead ? previous.key : "";
}

function contextAllows(entry: LexiconEntry, before: string): boolean {
  if (entry.needs === "admin") return ADMIN_WORDS.has(before);
  if (entry.needs === "country") {
    const context = TITLE_WORDS.has(syllableKey(entry.form)) ? TITLE_COUNTRY_CONTEXT : COUNTRY_CONTEXT;
    return context.has(before);
  }
  return true;
}

/** The phrase of {@link PHRASES} that tokens [index, index + length) spell, if its context allows it. */
function phraseAt(tokens: readonly Token[], index: number, length: number): LexiconEntry | undefined {
  if (!joined(tokens, index, index + length)) return undefined;
  const key = tokens
    .slice(index, index + length)
    .map((t) => t.key)
    .join(" ");
  const entry = PHRASES.get(key);
  return entry && contextAllows(entry, keyBefore(tokens, index)) ? entry : undefined;
}

/** Whether a phrase other than a district starts inside tokens (index, index + length). */
function strongerPhraseInside(tokens: readonly Token[], index: number, length: number): boolean {
  for (let start = index + 1; start < index + length; start++) {
    for (let size = MAX_PHRASE_SYLLABLES; size >= 2; size--) {
      const entry = phraseAt(tokens, start, size);
      if (entry && !entry.district) return true;
    }
  }
  return false;
}

/** Rule 1: the longest phrase at `index`; returns how many words it cased (0: none). */
function casePhrase(tokens: Token[], index: number): number {
  for (let length = Math.min(MAX_PHRASE_SYLLABLES, tokens.length - index); length >= 1; length--) {
    const entry = phraseAt(tokens, index, length);
    if (!entry || (entry.district && strongerPhraseInside(tokens, index, length))) continue;
    const words = tokens.slice(index, index + length);
    const forms = entry.form.split(/\s+/u);
    words.forEach((token, i) => {
      token.core = caseLike(token.core, forms[i] ?? "");
    });
    return length;
  }
  return 0;
}

/** Whether the word at `index` goes on the name that runs from `family` to just before it. */
function continuesName(tokens: readonly Token[], family: number, index: number): boolean {
  const token = tokens[index] as Token;
  if (index === family + 1) return NAME_SYLLABLES.has(token.key);
  // a third given syllable only after two middle names: "nguyễn thị minh khai", not "trịnh công sơn sáng tác"
  if (index === family + 3 && !MIDDLE.has((tokens[index - 1] as Token).key)) return false;
  // a verb ends the name ("nguyễn văn an học"); after "văn"/"thị" any other word is a given name
  if (NOT_NAME_AFTER_TITLE.has(token.key) || NOT_GIVEN_NAME.has(token.key)) return false;
  return STRONG_MIDDLE.has((tokens[index - 1] as Token).key) || NAME_SYLLABLES.has(token.key);
}

/** Rule 2: a family name and its given names at `index`; returns how many words it cased. */
function caseFullName(tokens: Token[], index: number): number {
  const family = tokens[index] as Token;
  if (!FAMILY_NAMES.has(family.key)) return 0;
  let end = index + 1;
  while (
    end - index <= MAX_GIVEN_SYLLABLES &&
    joined(tokens, end - 1, end + 1) &&
    continuesName(tokens, index, end)
  ) {
    end++;
  }
  const given = end - index - 1;
  const hasMiddleName = given >= 2 && MIDDLE.has((tokens[index + 1] as Token).key);
  if (AMBIGUOUS_FAMILY.has(family.key) && !hasMiddleName) return 0;
  for (let i = index; i < end; i++) (tokens[i] as Token).core = upperFirst((tokens[i] as Token).core);
  return end - index;
}

/** Whether `key` after a title is a name, given the key of the word after it (if joined to it). */
function isNameAfterTitle(key: string, nextKey: string | undefined): boolean {
  if (BIRTH_ORDER.has(key)) return nextKey === undefined || !COUNTED.has(nextKey);
  return NAME_SYLLABLES.has(key) && !NOT_NAME_AFTER_TITLE.has(key);
}

/**
 * Rule 3: a given name after a title at `index`. Returns 1 (the title) when it cased one, so that
 * the name is looked at again: "anh nguyễn văn an" is a title and then a full name.
 */
function caseTitledName(tokens: Token[], index: number): number {
  if (!TITLE_WORDS.has((tokens[index] as Token).key) || !joined(tokens, index, index + 2)) return 0;
  const title = tokens[index] as Token;
  const name = tokens[index + 1] as Token;
  const next = tokens[index + 2];
  const pair = next && joined(tokens, index + 1, index + 3) ? `${name.key} ${next.key}` : "";
  if (!isNameAfterTitle(name.key, pair ? next?.key : undefined)) return 0;
  if (TITLE_COMPOUNDS.has(`${title.key} ${name.key}`) || COMMON_AFTER_TITLE.has(pair)) return 0;
  name.core = upperFirst(name.core);
  if (next && GIVEN_NAME_PAIRS.has(pair) && !NOT_NAME_AFTER_TITLE.has(next.key)) {
    next.core = upperFirst(next.core);
  }
  return 1;
}

/**
 * Capitalises the proper nouns of a Vietnamese text (rules: module comment). Spacing is kept.
 *
 * @example
 * capitalizeProperNouns("tôi gặp anh nam ở hà nội và ông nguyễn văn an ở tp.hcm");
 * // "tôi gặp anh Nam ở Hà Nội và ông Nguyễn Văn An ở TP.HCM"
 */
export function capitalizeProperNouns(text: string): string {
  const tokens = tokenize(text.normalize("NFC"));
  for (let i = 0; i < tokens.length; ) {
    if (!tokens[i]?.core) {
      i++;
      continue;
    }
    i += casePhrase(tokens, i) || caseFullName(tokens, i) || caseTitledName(tokens, i) || 1;
  }
  return tokens.map((t) => t.lead + t.core + t.trail).join(" ");
}
