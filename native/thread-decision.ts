/**
 * A decode's threads under each policy, from the CPU meter's figures (cpu-meter.ts) and the rule
 * (thread-policy.ts). Streams decide at once from the sustained load: their decodes are short and
 * frequent, and a wait would be latency. A file decode whose threads the sustained load would cut
 * first reads back the moments just before it (its own media read and VAD): no other process took a
 * tick there, the threads are its at once. Otherwise it looks at the load now, for up to PROBE_MS,
 * and takes the lesser figure.
 */
import { foreignBusyCores, probeForeignBusy, recentlyIdle, usableCores } from "./cpu-meter.ts";
import { chooseThreading, fixedThreading, type Threading, type ThreadPolicy } from "./thread-policy.ts";

/**
 * The longest a file decode looks at the load before it gives up threads (half that when the figure
 * is clear): a few percent of a window's decode on a CPU, paid only while the sustained figure says
 * a neighbour is busy.
 */
export const PROBE_MS = 100;

/** The meter's readings a decision uses (the real meter by default; tests pass their own). */
export interface LoadReadings {
  cores: () => number;
  sustained: () => number;
  /** Whether no other process took a tick in the last moments, read back without a wait. */
  recentlyIdle: () => boolean;
  now: (ms: number) => Promise<number>;
}

const METER: LoadReadings = {
  cores: usableCores,
  sustained: foreignBusyCores,
  recentlyIdle,
  now: probeForeignBusy,
};

/** A policy's two decisions: a stream's, at once, and a file decode's, which may look again first. */
export interface ThreadDecisions {
  stream: (requested: number) => Threading;
  file: (requested: number) => Threading | Promise<Threading>;
}

/** The adaptive policy over `readings`. */
export function adaptiveDecisions(readings: LoadReadings = METER): ThreadDecisions {
  const decide = (requested: number, foreign: number) =>
    chooseThreading({ requested, cores: readings.cores(), foreignBusyCores: foreign });
  return {
    stream: (requested) => decide(requested, readings.sustained()),
    file: (requested) => {
      // an invalid count goes to the addon's option check as given (toNativeOptions), at once
      if (!Number.isInteger(requested) || requested < 1) return fixedThreading(requested);
      const sustained = readings.sustained();
      const loaded = decide(requested, sustained);
      const idle = decide(requested, 0);
      // the sustained load costs no threads: nothing to look again for
      if (loaded.threads >= idle.threads) return loaded;
      if (readings.recentlyIdle()) return idle;
      return readings.now(PROBE_MS).then((now) => decide(requested, Math.min(sustained, now)));
    },
  };
}

const FIXED: ThreadDecisions = { stream: fixedThreading, file: fixedThreading };

/** The decisions of a named policy. */
export function threadDecisions(policy: ThreadPolicy): ThreadDecisions {
  return policy === "adaptive" ? adaptiveDecisions() : FIXED;
}
