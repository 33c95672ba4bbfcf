/**
 * LocalAgreement-2 (Macháček et al., whisper_streaming): of the hypotheses the decoder gives for a
 * growing buffer, only the prefix that two consecutive ones agree on is settled. Settled text never
 * shrinks within an utterance, so interims shown to a user do not flicker; the rest of the newest
 * hypothesis is tentative and is not shown.
 */
import { foldForMatch, joinPieces, NO_SPACE_CLASS } from "../../protocol/postprocess/text.ts";

/** A word, or a single character of a script written without spaces (Chinese, Japanese, Thai...). */
const UNIT = new RegExp(`[${NO_SPACE_CLASS}]|[^\\s${NO_SPACE_CLASS}]+`, "gu");

/**
 * Splits text into agreement units.
 *
 * @example
 * units("Hello, world 你好"); // ["Hello,", "world", "你", "好"]
 */
export function units(text: string): string[] {
  return text.match(UNIT) ?? [];
}

/** Two units agree when they read the same ignoring case, punctuation and diacritics' absence. */
function same(a: string, b: string): boolean {
  const ka = foldForMatch(a);
  return ka === "" ? a === b : ka === foldForMatch(b);
}

/**
 * Length of the longest common prefix of two unit lists.
 *
 * @example
 * agreedLength(["the", "quick", "brown"], ["The", "quick", "fox"]); // 2
 */
export function agreedLength(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && same(a[n] ?? "", b[n] ?? "")) n++;
  return n;
}

/**
 * The settled text of one utterance.
 *
 * @example
 * const la = new LocalAgreement();
 * la.update("the quick"); // ""          (nothing to agree with yet)
 * la.update("the quick brown"); // "the quick"
 * la.update("the quack brown fox"); // "the quick" (settled text stays)
 */
export class LocalAgreement {
  #previous: string[] = [];
  #settled: string[] = [];

  /** Feeds the newest hypothesis; returns the settled text (possibly grown). */
  update(hypothesis: string): string {
    const current = units(hypothesis);
    const agreed = current.slice(0, agreedLength(this.#previous, current));
    // grow only by extending what is settled: a later disagreement inside it does not un-settle it
    if (
      agreed.length > this.#settled.length &&
      agreedLength(agreed, this.#settled) === this.#settled.length
    ) {
      this.#settled = [...this.#settled, ...agreed.slice(this.#settled.length)];
    }
    this.#previous = current;
    return this.text;
  }

  get text(): string {
    return joinPieces(this.#settled);
  }

  /** Forgets everything: the next utterance starts clean. */
  reset(): void {
    this.#previous = [];
    this.#settled = [];
  }
}
