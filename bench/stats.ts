/** Small statistics for benchmarks. */
import { readFileSync } from "node:fs";

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export const median = (values: readonly number[]) => percentile(values, 50);

/** Wall time of `fn` in milliseconds. */
export async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** Busy CPU time of the whole machine so far in ms, from /proc/stat (USER_HZ 100); NaN elsewhere. */
export function machineBusyMs(): number {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]?.trim().split(/\s+/).slice(1);
    // user nice system idle iowait irq softirq steal: everything but idle and iowait
    const [user, nice, system, , , irq, softirq, steal] = (fields ?? []).map(Number);
    return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * Cores other processes kept busy on average while one measured run took `wallMs`: the machine's
 * busy time over the run minus the CPU time of the processes measured (`ownCpuMs`). The machine is
 * shared, and whisper's OpenMP threads spin at barriers, so a run beside another tenant's work can
 * take several times as long; this says which runs were quiet.
 */
export function otherCores(
  busyBeforeMs: number,
  busyAfterMs: number,
  ownCpuMs: number,
  wallMs: number,
): number {
  return Math.max(0, busyAfterMs - busyBeforeMs - ownCpuMs) / wallMs;
}

/** The CPU time of this process so far, in ms (all threads). */
export function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
