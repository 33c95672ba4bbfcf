/**
 * The node's live decodes share its cores through one gate. Without it every stream decodes on its own
 * whisper states whenever it likes: four streams on two cores ran up to eight decodes of two threads
 * each at once, and ggml's threads, which spin at their barriers, turned a 550 ms decode into 2-50 s
 * (docs/native.md, "Live decode gate").
 *
 * The gate hands out CPU threads, `cores` of them in all. A decode alone gets the node's threads per
 * decode (`perDecode`, the fastest single decode); when others wait, the free threads are split
 * between them, one each at least: a single-threaded decode meets no barrier, so several of them side
 * by side keep their speed on shared cores, and a burst of finals finishes sooner than one by one.
 * Finals go before interims, each kind in arrival order, and a final that finds no free thread takes
 * the threads of the newest running interim: the interim's signal aborts (an interim is a preview,
 * the next one catches up).
 */
import { AbortError } from "../../native/index.ts";

export type DecodeKind = "interim" | "final";

interface Waiter {
  kind: DecodeKind;
  start: (threads: number) => void;
}

interface Running {
  kind: DecodeKind;
  threads: number;
  controller: AbortController;
}

/**
 * @example
 * const gate = new DecodeGate(2, 2);
 * const t = await gate.run("final", (signal, threads) => stream.decode(pcm, { signal, threads }));
 */
export class DecodeGate {
  readonly #waiting: Waiter[] = [];
  readonly #running = new Set<Running>();
  #free: number;

  constructor(
    readonly cores: number,
    readonly perDecode: number,
  ) {
    if (!Number.isInteger(cores) || cores < 1 || !Number.isInteger(perDecode) || perDecode < 1) {
      throw new RangeError("a decode gate needs at least one core and one thread per decode");
    }
    this.#free = cores;
  }

  /** Decodes running now (an aborted one counts until its promise settles). */
  get active(): number {
    return this.#running.size;
  }

  /** Decodes waiting for threads. */
  get queued(): number {
    return this.#waiting.length;
  }

  /**
   * Runs `work` once threads are free, with how many it may use; they are held until its promise
   * settles. `work` gets a signal that aborts when `signal` does or, for an interim, when a final
   * takes its threads. Rejects with an AbortError, without running `work`, when `signal` aborts while
   * waiting.
   */
  run<T>(
    kind: DecodeKind,
    work: (signal: AbortSignal, threads: number) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    if (signal?.aborted) return Promise.reject(new AbortError(signal.reason));
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = {
        kind,
        start: (threads) => {
          signal?.removeEventListener("abort", onAbort);
          const running: Running = { kind, threads, controller: new AbortController() };
          const forward = () => running.controller.abort(signal?.reason);
          signal?.addEventListener("abort", forward, { once: true });
          this.#running.add(running);
          this.#free -= threads;
          let done: Promise<T>;
          try {
            done = work(running.controller.signal, threads);
          } catch (error) {
            done = Promise.reject(error);
          }
          done
            .finally(() => {
              signal?.removeEventListener("abort", forward);
              this.#running.delete(running);
              this.#free += threads;
              this.#admit();
            })
            .then(resolve, reject);
        },
      };
      const onAbort = () => {
        const at = this.#waiting.indexOf(waiter);
        if (at >= 0) this.#waiting.splice(at, 1);
        reject(new AbortError(signal?.reason));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      // finals queue ahead of every interim, behind earlier finals
      const firstInterim = this.#waiting.findIndex((w) => w.kind === "interim");
      if (kind === "final" && firstInterim >= 0) this.#waiting.splice(firstInterim, 0, waiter);
      else this.#waiting.push(waiter);
      this.#admit();
      if (kind === "final" && this.#waiting.includes(waiter)) this.#preemptInterim();
    });
  }

  #admit(): void {
    while (this.#free >= 1) {
      const waiting = this.#waiting.length;
      const next = this.#waiting.shift();
      if (!next) return;
      next.start(Math.min(this.perDecode, Math.max(1, Math.floor(this.#free / waiting))));
    }
  }

  /** A final waits: the newest running interim gives its threads up (the least work is lost). */
  #preemptInterim(): void {
    const interims = [...this.#running].filter((r) => r.kind === "interim" && !r.controller.signal.aborted);
    interims.at(-1)?.controller.abort(new Error("a final needs the cores"));
  }
}
