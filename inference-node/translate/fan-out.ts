/**
 * Translation for live streams: one text into every target language at once (each language once,
 * however many listeners read it), and the moving figure of how long the backend takes per call,
 * which decides whether interims are worth translating.
 */
import { TranslationError, type Translator } from "./translator.ts";

/** Interims carry a translation only while the backend's moving call time is at most this. */
export const INTERIM_TRANSLATION_BUDGET_MS = 150;

/**
 * An exponentially weighted moving average of translation call times (α = 0.2: about the last ten
 * calls). Every call counts, finals' and interims' alike, so a backend that slowed down stops
 * getting interims and one that recovers (its finals get fast again) gets them back.
 *
 * @example
 * const meter = new LatencyMeter();
 * meter.record(40);
 * meter.fastEnough(); // true: 40 ms ≤ 150 ms
 */
export class LatencyMeter {
  #average: number | null = null;

  constructor(private readonly alpha = 0.2) {}

  record(ms: number): void {
    this.#average = this.#average === null ? ms : this.#average + this.alpha * (ms - this.#average);
  }

  /** The moving average in ms; null before the first call. */
  get averageMs(): number | null {
    return this.#average;
  }

  /** True before any measurement (the first call is tried) and while the average is within the budget. */
  fastEnough(budgetMs = INTERIM_TRANSLATION_BUDGET_MS): boolean {
    return this.#average === null || this.#average <= budgetMs;
  }
}

export interface FanOut {
  /** Target language → translated text, for every target that succeeded. */
  translations: Record<string, string>;
  /** Targets whose translation failed (the caller shows the original instead). */
  errors: string[];
}

/**
 * Translates `text` from `from` into each of `targets` (in parallel; a target equal to `from` is the
 * text itself, no call), timing every call into `meter`. Never throws: failures are listed.
 *
 * @example
 * await translateInto(mt, meter, "Hello", "en", ["es", "fr"]);
 * // { translations: { es: "Hola", fr: "Bonjour" }, errors: [] }
 */
export async function translateInto(
  translator: Translator | null,
  meter: LatencyMeter,
  text: string,
  from: string,
  targets: readonly string[],
  signal?: AbortSignal,
  onError?: (target: string, error: unknown) => void,
): Promise<FanOut> {
  const out: FanOut = { translations: {}, errors: [] };
  await Promise.all(
    [...new Set(targets)].map(async (target) => {
      if (target === from) {
        out.translations[target] = text;
        return;
      }
      if (!translator) {
        out.errors.push(target);
        return;
      }
      const started = performance.now();
      try {
        out.translations[target] = await translator.translate(text, from, target, signal);
        meter.record(performance.now() - started);
      } catch (error) {
        out.errors.push(target);
        // a pair the backend does not offer fails without a call: it says nothing about speed
        if (!(error instanceof TranslationError && error.code === "unsupported")) {
          meter.record(performance.now() - started);
        }
        onError?.(target, error);
      }
    }),
  );
  out.errors.sort();
  return out;
}
