/**
 * Cores' worth of CPU that other processes keep busy, for the per-decode thread decision
 * (thread-policy.ts): the machine's busy time (os.cpus()) minus this process's own (its decodes
 * included), per 250 ms sample, and the **least** of the samples over the last ~METER_WINDOW_MS. A
 * neighbour that competes for the cores (another decoder, a build) is busy in every sample; the
 * platform's own short bursts around a request (the Worker taking the upload, the media read, ffmpeg
 * turning the file into PCM, a child process this one does not count as its own) fill a few, and must
 * not cost the decode its threads. Sampled by an unref'd timer so a decision never waits.
 */
import { availableParallelism, cpus } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";

const SAMPLE_MS = 250;
/**
 * Longer than the platform's burst before a decode (a few hundred ms), short enough that a neighbour
 * that started is counted from its second second on.
 */
export const METER_WINDOW_MS = 2000;

export interface Sample {
  at: number;
  machineBusyMs: number;
  ownMs: number;
}

function sample(): Sample {
  let busy = 0;
  for (const cpu of cpus()) busy += cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq;
  const own = process.cpuUsage();
  return { at: performance.now(), machineBusyMs: busy, ownMs: (own.user + own.system) / 1000 };
}

/** Busy cores of other processes between two samples; never below 0 (tick rounding). */
export function foreignBusyBetween(from: Sample, to: Sample): number {
  const wall = to.at - from.at;
  if (wall <= 0) return 0;
  const foreign = to.machineBusyMs - from.machineBusyMs - (to.ownMs - from.ownMs);
  return Math.max(0, foreign / wall);
}

let samples: Sample[] = [];
let timer: ReturnType<typeof setInterval> | null = null;

/** Starts sampling (idempotent): a model starts it when it loads, so its first decode has a window. */
export function startCpuMeter(): void {
  if (timer) return;
  samples = [sample()];
  timer = setInterval(() => {
    samples.push(sample());
    const keep = Math.ceil(METER_WINDOW_MS / SAMPLE_MS) + 1;
    if (samples.length > keep) samples = samples.slice(-keep);
  }, SAMPLE_MS);
  timer.unref();
}

/**
 * Other processes' busy cores, sustained: the least of each sample interval's figure over the last
 * ~METER_WINDOW_MS (0 while fewer than two samples were taken).
 */
export function sustainedForeignBusy(window: readonly Sample[]): number {
  let least = Number.POSITIVE_INFINITY;
  for (let i = 1; i < window.length; i++) {
    const from = window[i - 1];
    const to = window[i];
    if (from && to) least = Math.min(least, foreignBusyBetween(from, to));
  }
  return Number.isFinite(least) ? least : 0;
}

/** Other processes' sustained busy cores over the last ~METER_WINDOW_MS (0 when sampling has only just started). */
export function foreignBusyCores(): number {
  startCpuMeter();
  return sustainedForeignBusy(samples);
}

/** A look at the load now ends early, from this long on, once its figure is clearly idle or busy. */
const PROBE_EARLY_MS = 50;
const PROBE_STEP_MS = 25;

/**
 * Other processes' busy cores from now on, for up to `maxMs`. The sustained figure looks back, so it
 * still counts a neighbour that stopped a moment ago (another server's decode that just answered);
 * by the time a decode starts, the platform's own burst before it is over too, so a short look now
 * tells a neighbour that is still there from one that is gone. /proc/stat counts in 10 ms ticks: a
 * look ends after PROBE_EARLY_MS when it saw at most one stray tick per core pair (under 0.25 cores:
 * idle) or a whole core busy, and otherwise runs the whole `maxMs` (±0.2 cores over 100 ms on two).
 */
export async function probeForeignBusy(maxMs: number): Promise<number> {
  const from = sample();
  let foreign = 0;
  for (let elapsed = 0; elapsed < maxMs; ) {
    const step = Math.min(PROBE_STEP_MS, maxMs - elapsed);
    await sleep(step);
    elapsed += step;
    foreign = foreignBusyBetween(from, sample());
    if (elapsed >= PROBE_EARLY_MS && (foreign < 0.25 || foreign >= 1)) break;
  }
  return foreign;
}

/** CPUs this process may run on. */
export function usableCores(): number {
  return availableParallelism();
}
