/**
 * Starts a model's decodes in call order when one must first wait for its thread decision
 * (thread-decision.ts): a call made while an earlier one still waits queues behind it, so the addon's
 * queue sees the calls in the order they were made. With nothing waiting, a decode whose decision is
 * at hand starts at once, as it always did.
 */
import type { Threading } from "./thread-policy.ts";

const ignore = () => undefined;

export class OrderedStarts {
  #tail: Promise<void> | null = null;
  #waiting = 0;

  /** Calls whose decode has not started yet. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Resolves once every call made so far has started its decode. */
  drained(): Promise<void> {
    return this.#tail ?? Promise.resolve();
  }

  /** Decides, then starts; `start` queues the native decode and returns its promise. */
  run<T>(
    decide: () => Threading | Promise<Threading>,
    start: (threading: Threading) => Promise<T>,
  ): Promise<T> {
    if (this.#tail === null) {
      const decided = decide();
      if (!(decided instanceof Promise)) return start(decided);
      return this.#defer(decided, start);
    }
    return this.#defer(this.#tail.then(decide), start);
  }

  #defer<T>(decided: Promise<Threading>, start: (threading: Threading) => Promise<T>): Promise<T> {
    this.#waiting += 1;
    // the decode's promise is wrapped so that `begun` settles when the decode starts, not when it ends
    const begun = decided
      .then((threading) => ({ decode: start(threading) }))
      .finally(() => {
        this.#waiting -= 1;
      });
    const tail: Promise<void> = begun.then(ignore, ignore).then(() => {
      if (this.#tail === tail) this.#tail = null;
    });
    this.#tail = tail;
    return begun.then((started) => started.decode);
  }
}
