/**
 * Cores' worth of CPU that other processes are using, for the per-decode thread decision
 * (thread-policy.ts): the machine's busy time (os.cpus()) minus this process's own (its decodes
 * included), over the last ~METER_WINDOW_MS. Sampled by an unref'd timer so a decision never waits.
 */
import { availableParallelism, cpus } from "node:os";

const SAMPLE_MS = 250;
/** Long enough to smooth the kernel's tick accounting, short enough to follow a neighbour starting. */
export const METER_WINDOW_MS = 1000;

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

/** Other processes' busy cores over the last ~second (0 when sampling has only just started). */
export function foreignBusyCores(): number {
  startCpuMeter();
  const first = samples[0];
  return first ? foreignBusyBetween(first, sample()) : 0;
}

/** CPUs this process may run on. */
export function usableCores(): number {
  return availableParallelism();
}
