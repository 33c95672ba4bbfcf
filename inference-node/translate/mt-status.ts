/**
 * What a node tells the Worker about its translation backend (/health's `mt_loaded` and `mt_model`,
 * and the pairs `GET /api/v1/languages` lists): the pairs are asked of the backend at start and then
 * every minute, so a backend that comes up late, goes away or gains a pair shows within a minute.
 */
import type { Logger } from "../logger.ts";
import type { LanguagePair, Translator } from "./translator.ts";

const REFRESH_MS = 60_000;
/** While the backend has not answered yet (it may still be starting), ask again sooner. */
const RETRY_MS = 3_000;

export interface MtHealth {
  mt_loaded: boolean;
  mt_model: string;
  mt_pairs: [string, string][];
}

/**
 * @example
 * const mt = new MtStatus(translator, logger);
 * mt.start();
 * const health = { ...asrHealth, ...mt.health };
 */
export class MtStatus {
  #pairs: LanguagePair[] | null = null;
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;

  constructor(
    private readonly translator: Translator | null,
    private readonly logger: Logger,
  ) {}

  /** Reads the pairs now, then keeps them fresh. Resolves after the first read (success or not). */
  async start(): Promise<void> {
    if (!this.translator) return;
    await this.#refresh();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
  }

  /** Loaded means the backend answered its last pair query with at least one pair. */
  get health(): MtHealth {
    const pairs = this.#pairs ?? [];
    return {
      mt_loaded: pairs.length > 0,
      mt_model: this.translator?.model ?? "",
      mt_pairs: pairs.map(([from, to]) => [from, to]),
    };
  }

  /**
   * Whether asking the backend for `from` → `to` can succeed: it listed that direction when last asked,
   * or has not answered yet (still starting, or down: the call is made and its failure logged). Apertium
   * has no Vietnamese pair, so an English job's VI<->EN translation is not sent there only to fail.
   */
  translates(from: string, to: string): boolean {
    return this.#pairs === null || this.#pairs.some(([f, t]) => f === from && t === to);
  }

  async #refresh(): Promise<void> {
    if (!this.translator || this.#stopped) return;
    try {
      const pairs = await this.translator.pairs(AbortSignal.timeout(10_000));
      if (this.#pairs === null || this.#pairs.length !== pairs.length) {
        this.logger.info({ model: this.translator.model, pairs: pairs.length }, "translation backend ready");
      }
      this.#pairs = pairs;
    } catch (error) {
      if (this.#pairs !== null || !this.#timer) {
        this.logger.warn({ err: String(error) }, "translation backend unavailable");
      }
      this.#pairs = null;
    }
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#refresh(), this.#pairs ? REFRESH_MS : RETRY_MS);
    this.#timer.unref();
  }
}
