import type { LanguagesResponse } from "../api/types.ts";

/** The two languages of a translation: spoken, and translated into. */
export interface LanguagePair {
  source: string;
  target: string;
}

const STORAGE_KEY = "voxedge.translate.pair";

const codes = (languages: LanguagesResponse) => languages.supported_languages.map(([code]) => code);

/**
 * The pair to start with: the one chosen last time when the deployment still has both languages, else
 * the deployment's defaults.
 *
 * @example initialPair({ supported_languages: [["en","English"],["es","Spanish"]], default_source: "en", default_target: "es", … })
 * // { source: "en", target: "es" }
 */
export function initialPair(
  languages: LanguagesResponse,
  saved: LanguagePair | null = readSavedPair(),
): LanguagePair {
  const known = codes(languages);
  if (saved && known.includes(saved.source) && known.includes(saved.target)) return saved;
  return { source: languages.default_source, target: languages.default_target };
}

/** A new spoken language; picking the target language swaps the two. */
export function withSource(pair: LanguagePair, source: string): LanguagePair {
  return source === pair.target ? { source, target: pair.source } : { ...pair, source };
}

/** A new target language; picking the spoken language swaps the two. */
export function withTarget(pair: LanguagePair, target: string): LanguagePair {
  return target === pair.source ? { source: pair.target, target } : { ...pair, target };
}

export function swapped(pair: LanguagePair): LanguagePair {
  return { source: pair.target, target: pair.source };
}

/** Whether the deployment translates this direction (finals of another come untranslated, flagged). */
export function translatesPair(languages: LanguagesResponse, pair: LanguagePair): boolean {
  return (
    pair.source === pair.target ||
    languages.translation_pairs.some(([from, to]) => from === pair.source && to === pair.target)
  );
}

function readSavedPair(): LanguagePair | null {
  try {
    const saved = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "null") as Partial<LanguagePair> | null;
    return typeof saved?.source === "string" && typeof saved.target === "string"
      ? { source: saved.source, target: saved.target }
      : null;
  } catch {
    return null;
  }
}

export function savePair(pair: LanguagePair): void {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(pair));
}
