/**
 * Cores' worth of CPU that other processes keep busy, for the per-decode thread decision
 * (thread-policy.ts): the machine's busy time (os.cpus()) minus this process's own (its decodes
 * included). The sustained figure is the **least** of the 250 ms intervals' figures over the last
 * ~METER_WINDOW_MS. A neighbour that competes for the cores (another decoder, a build) is busy in every
 * interval; the platform's own short bursts around a request (the Worker taking the upload, the media
 * read, ffmpeg turning the file into PCM, a child process this one does not count as its own) fill a
 * few, and must not cost the decode its threads. Sampled every SAMPLE_MS by an unref'd timer, so a
 * decision never waits, and so the last moments before a decode can be read back too (`recentlyIdle`).
 * Where the platform runs on this machine (`npm start`: wrangler dev), its process tree is named
 * (`setPlatformProcess`) and sampled too, so that the read-back can tell its burst for this very
 * request (serving the lease and the media just before the decode) from a neighbour's work.
 */
import { availableParallelism, cpus } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { cpuMsBetween, ProcessTreeCpu, type TreeReading } from "./process-tree-cpu.ts";

/** The sampler's period: fine enough to read back the last ~50 ms before a decode (os.cpus() costs ~50 us). */
const SAMPLE_MS = 50;
/** The sustained figure's intervals, in samples: 250 ms, long enough for 10 ms ticks to read true. */
const SUSTAINED_STRIDE = 5;
/**
 * Longer than the platform's burst before a decode (a few hundred ms), short enough that a neighbour
 * that started is counted from its second second on.
 */
export const METER_WINDOW_MS = 2000;
/**
 * Other processes' CPU below this over a look counts as none: /proc/stat counts in 10 ms ticks and
 * this process's own time is exact, so an idle machine reads within half a tick of zero.
 */
const NO_FOREIGN_TICK_MS = 5;
/** A look back or ahead this long that saw no foreign tick is clearly idle (a busy core ticks every 10 ms). */
const CLEAR_IDLE_MS = 20;
/**
 * The platform's own sustained busy cores below which its ticks just before a decode are read as its
 * burst for the request: the probe's "clearly idle" bound. A platform busy in every interval (a room
 * relaying to a hundred listeners) is a neighbour like any other.
 */
const PLATFORM_QUIET_CORES = 0.25;

export interface Sample {
  at: number;
  machineBusyMs: number;
  ownMs: number;
  /** The named platform's processes, each one's CPU total; absent while none is named. */
  platform?: TreeReading;
}

let platformTree: ProcessTreeCpu | null = null;

/**
 * Names the root of the local platform's processes (wrangler dev's pid, which `npm start` gives the
 * node), or none. Only the read-back before a file decode (`recentlyIdle`) leaves their ticks out, and
 * only while they are not busy in every interval of the window; every other figure counts them.
 */
export function setPlatformProcess(pid: number | null): void {
  platformTree?.close();
  platformTree = pid === null ? null : new ProcessTreeCpu(pid);
}

function sample(): Sample {
  let busy = 0;
  for (const cpu of cpus()) busy += cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq;
  const own = process.cpuUsage();
  const at = performance.now();
  const ownMs = (own.user + own.system) / 1000;
  return platformTree
    ? { at, machineBusyMs: busy, ownMs, platform: platformTree.read(at) }
    : { at, machineBusyMs: busy, ownMs };
}

/** CPU ms the named platform's processes used between two samples (0 unless both read them). */
function platformMsBetween(from: Sample, to: Sample): number {
  return from.platform && to.platform ? cpuMsBetween(from.platform, to.platform) : 0;
}

/** CPU ms other processes used between two samples; never below 0 (tick rounding). */
function foreignMsBetween(from: Sample, to: Sample): number {
  return Math.max(0, to.machineBusyMs - from.machineBusyMs - (to.ownMs - from.ownMs));
}

/** Busy cores of other processes between two samples; never below 0 (tick rounding). */
export function foreignBusyBetween(from: Sample, to: Sample): number {
  const wall = to.at - from.at;
  return wall <= 0 ? 0 : foreignMsBetween(from, to) / wall;
}

/** Busy cores of the named platform's processes between two samples. */
function platformBusyBetween(from: Sample, to: Sample): number {
  const wall = to.at - from.at;
  return wall <= 0 ? 0 : platformMsBetween(from, to) / wall;
}

/**
 * Whether a look from `from` to `to` was long enough to tell and saw no other process take a tick;
 * with `besidesPlatform`, none but the named platform's.
 */
export function clearlyIdleBetween(from: Sample, to: Sample, besidesPlatform = false): boolean {
  const platformMs = besidesPlatform ? platformMsBetween(from, to) : 0;
  return to.at - from.at >= CLEAR_IDLE_MS && foreignMsBetween(from, to) - platformMs < NO_FOREIGN_TICK_MS;
}

let samples: Sample[] = [];
let timer: ReturnType<typeof setInterval> | null = null;

/** Starts sampling (idempotent): a model starts it when it loads, so its first decode has a window. */
export function startCpuMeter(): void {
  if (timer) return;
  samples = [sample()];
  timer = setInterval(() => {
    samples.push(sample());
    const keep = Math.ceil(METER_WINDOW_MS / SAMPLE_MS) + SUSTAINED_STRIDE;
    if (samples.length > keep) samples = samples.slice(-keep);
  }, SAMPLE_MS);
  timer.unref();
}

/**
 * Other processes' sustained busy cores: the least figure of the intervals `stride` samples long that
 * end at the newest sample (0 while no such interval was sampled).
 */
export function sustainedForeignBusy(window: readonly Sample[], stride = 1): number {
  return leastOverIntervals(window, stride, foreignBusyBetween);
}

/** The named platform's own sustained busy cores, as `sustainedForeignBusy` reads everyone's. */
export function sustainedPlatformBusy(window: readonly Sample[], stride = 1): number {
  return leastOverIntervals(window, stride, platformBusyBetween);
}

function leastOverIntervals(
  window: readonly Sample[],
  stride: number,
  busyBetween: (from: Sample, to: Sample) => number,
): number {
  let least = Number.POSITIVE_INFINITY;
  for (let i = window.length - 1; i - stride >= 0; i -= stride) {
    const from = window[i - stride];
    const to = window[i];
    if (from && to) least = Math.min(least, busyBetween(from, to));
  }
  return Number.isFinite(least) ? least : 0;
}

/** Other processes' sustained busy cores over the last ~METER_WINDOW_MS (0 when sampling has only just started). */
export function foreignBusyCores(): number {
  startCpuMeter();
  return sustainedForeignBusy(samples, SUSTAINED_STRIDE);
}

/**
 * Whether no other process took a tick since the newest sample at least CLEAR_IDLE_MS old: read back,
 * without a wait. Just before a file decode that is this process's own media read (and its VAD, when
 * the task runs one), so a neighbour that stopped before the request came in (another server's decode
 * that just answered) is no longer there, and one still busy ticks in it.
 */
export function recentlyIdle(): boolean {
  startCpuMeter();
  return idleJustBefore(samples, sample());
}

/**
 * `recentlyIdle` over a window of samples and the sample `now`. The platform on this machine serves
 * the request's lease and media just before its decode, so it ticks there too: where it is named
 * (`setPlatformProcess`), its ticks are left out while it is not itself busy in every interval of the
 * window (under PLATFORM_QUIET_CORES sustained).
 */
export function idleJustBefore(window: readonly Sample[], now: Sample): boolean {
  const besidesPlatform =
    now.platform !== undefined && sustainedPlatformBusy(window, SUSTAINED_STRIDE) < PLATFORM_QUIET_CORES;
  for (let i = window.length - 1; i >= 0; i--) {
    const from = window[i];
    if (from && now.at - from.at >= CLEAR_IDLE_MS) return clearlyIdleBetween(from, now, besidesPlatform);
  }
  return false;
}

/** A look at the load now ends early, from this long on, once its figure is clearly idle or busy. */
const PROBE_EARLY_MS = 50;
const PROBE_STEP_MS = 10;

/**
 * Other processes' busy cores from now on, for up to `maxMs`. The sustained figure looks back, so it
 * still counts a neighbour that stopped a moment ago (another server's decode that just answered);
 * by the time a decode starts, the platform's own burst before it is over too, so a short look now
 * tells a neighbour that is still there from one that is gone. /proc/stat counts in 10 ms ticks: a
 * look ends after CLEAR_IDLE_MS when no other process took a tick, after PROBE_EARLY_MS when it saw
 * at most one stray tick per core pair (under 0.25 cores: idle) or most of a core busy (0.75 or more:
 * a neighbour on one core reads 0.95-1.05, so a bound of a whole core left it to chance), and otherwise
 * runs the whole `maxMs` (±0.2 cores over 100 ms on two).
 */
export async function probeForeignBusy(maxMs: number): Promise<number> {
  const from = sample();
  for (;;) {
    // real time, not the steps asked for: on busy cores each timer fires late
    const wait = Math.min(PROBE_STEP_MS, maxMs - (performance.now() - from.at));
    if (wait > 0) await sleep(wait);
    const to = sample();
    const foreign = foreignBusyBetween(from, to);
    const looked = to.at - from.at;
    const clear = looked >= PROBE_EARLY_MS && (foreign < 0.25 || foreign >= 0.75);
    if (looked >= maxMs || clear || clearlyIdleBetween(from, to)) return foreign;
  }
}

/** CPUs this process may run on. */
export function usableCores(): number {
  return availableParallelism();
}
