/**
 * How many threads a decode gets and how hard they poll, decided per decode from the cores other
 * work is using. ggml's own threadpool spins at its barriers without bound (only the wait for the
 * next graph is bounded, by the polling level), so a decode is fast only while each of its threads
 * has a core: a thread whose partner is descheduled spins through the partner's time slice, and a
 * 2-thread decode beside one busy core on a 2-core box runs several times slower than on one thread.
 * So: all the threads asked for, polling as ggml does by default, while that many cores are idle;
 * otherwise only as many threads as there are idle cores (at least one: a single thread meets no
 * barrier) and no polling between graphs, leaving the contested cores to their other work.
 * The load is the sustained one (cpu-meter.ts): the platform's own burst before a decode does not
 * count. A file decode that it would cost threads looks again (thread-decision.ts), and decides from
 * the lesser figure: a neighbour that stopped a moment ago no longer counts either.
 * A model's own concurrent decodes are not counted (the inference node sizes concurrency x threads
 * to its cores); a decode waiting for its turn was decided when it was called.
 */

/** ggml's default polling level (ggml_threadpool_params_default): workers poll ~0.1 s for the next graph. */
export const SPIN_POLL_LEVEL = 50;
/** A core counts as idle when other work used less than this share of it. */
const IDLE_SLACK = 0.25;

export interface ThreadingInput {
  /** Threads the caller asked for: the most this decode may use. */
  requested: number;
  /** CPUs this process may run on. */
  cores: number;
  /** Cores' worth of CPU that other processes used over the last measured window. */
  foreignBusyCores: number;
}

export interface Threading {
  threads: number;
  /** ggml threadpool polling level, 0..100. */
  pollLevel: number;
}

/** `requested` is a positive integer (toNativeOptions leaves others to the addon's option check). */
export function chooseThreading(input: ThreadingInput): Threading {
  const { requested } = input;
  const idleCores = Math.floor(input.cores - Math.max(0, input.foreignBusyCores) + IDLE_SLACK);
  if (idleCores >= requested) return { threads: requested, pollLevel: SPIN_POLL_LEVEL };
  return { threads: Math.max(1, idleCores), pollLevel: 0 };
}

/** The `fixed` policy: the threads asked for, polling as ggml does by default, whatever the load. */
export function fixedThreading(requested: number): Threading {
  return { threads: requested, pollLevel: SPIN_POLL_LEVEL };
}

export type ThreadPolicy = "adaptive" | "fixed";
