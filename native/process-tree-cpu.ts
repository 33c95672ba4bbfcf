/**
 * CPU time of a process and all its descendants, read from Linux's /proc: for the CPU meter to tell
 * the local platform's own work (wrangler dev: its node, workerd and esbuild processes) from a
 * neighbour's. The kernel keeps no list of a process's children here (no CONFIG_PROC_CHILDREN on every
 * kernel), so the tree is found from every process's parent id, again every TREE_REFRESH_MS: a
 * process the platform starts later is counted from then on, one that ended stops counting.
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";

/** `getconf CLK_TCK`: the unit of /proc/<pid>/stat's times, 100 on every Linux build the node runs on. */
const CLOCK_TICKS_PER_SEC = 100;
/** A whole scan of /proc costs ~3 ms here; the platform's processes change only when it reloads. */
const TREE_REFRESH_MS = 10_000;
/** /proc/<pid>/stat is one line of a few hundred bytes. */
const STAT_BYTES = 1024;

/** Fields of a /proc/<pid>/stat line after the command name, which may hold spaces and parentheses. */
function fieldsOf(text: string): string[] | null {
  const close = text.lastIndexOf(")");
  return close < 0 ? null : text.slice(close + 2).split(" ");
}

function statFields(pid: number): string[] | null {
  try {
    return fieldsOf(readFileSync(`/proc/${pid}/stat`, "latin1"));
  } catch {
    return null; // ended, or no /proc
  }
}

/** User + system CPU ms from a stat line's fields: utime (11) and stime (12) after the name. */
function cpuMsOf(fields: string[] | null): number | null {
  const ticks = Number(fields?.[11]) + Number(fields?.[12]);
  return Number.isFinite(ticks) ? (ticks * 1000) / CLOCK_TICKS_PER_SEC : null;
}

/** CPU ms (user + system, all threads) process `pid` has used so far; null once it has ended. */
export function processCpuMs(pid: number): number | null {
  return cpuMsOf(statFields(pid));
}

/** `root` and every process below it, from each process's parent id. */
export function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [root];
  }
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const ppid = Number(statFields(pid)?.[1]);
    if (!Number.isInteger(ppid)) continue;
    const siblings = children.get(ppid) ?? [];
    siblings.push(pid);
    children.set(ppid, siblings);
  }
  const tree: number[] = [];
  const pending = [root];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    tree.push(pid);
    pending.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** A reading of a process tree's CPU: each live process's own total, so that one that ends is not a loss. */
export type TreeReading = ReadonlyMap<number, number>;

/**
 * CPU ms the tree used between two readings: each process present in both counts its growth. One
 * found only in the later reading is not counted (found late by the refresh, its total is its whole
 * life, not the interval), so the figure errs low, towards counting work as a neighbour's.
 */
export function cpuMsBetween(from: TreeReading, to: TreeReading): number {
  let ms = 0;
  for (const [pid, total] of to) {
    const before = from.get(pid);
    if (before !== undefined) ms += Math.max(0, total - before);
  }
  return ms;
}

/**
 * Reads a process tree's CPU, the tree itself found again every TREE_REFRESH_MS.
 *
 * @example
 * const platform = new ProcessTreeCpu(wranglerPid);
 * const before = platform.read();
 * // ... later
 * console.log(cpuMsBetween(before, platform.read()), "ms of CPU in wrangler dev's processes");
 */
export class ProcessTreeCpu {
  /** Each process's stat file, kept open: reading it again at offset 0 costs ~4 us, opening it ~20. */
  private readonly files = new Map<number, number>();
  private readonly buffer = Buffer.alloc(STAT_BYTES);
  private foundAt = Number.NEGATIVE_INFINITY;

  constructor(readonly root: number) {}

  read(now = performance.now()): TreeReading {
    if (now - this.foundAt >= TREE_REFRESH_MS) this.refresh(now);
    const reading = new Map<number, number>();
    for (const [pid, fd] of this.files) {
      const ms = this.cpuMs(fd);
      if (ms === null) this.forget(pid);
      else reading.set(pid, ms);
    }
    return reading;
  }

  /** Stops reading; the files are closed. */
  close(): void {
    for (const pid of [...this.files.keys()]) this.forget(pid);
  }

  private refresh(now: number): void {
    this.foundAt = now;
    const tree = new Set(descendantsOf(this.root));
    for (const pid of this.files.keys()) if (!tree.has(pid)) this.forget(pid);
    for (const pid of tree) {
      if (this.files.has(pid)) continue;
      try {
        this.files.set(pid, openSync(`/proc/${pid}/stat`, "r"));
      } catch {
        // ended since the scan, or no /proc: nothing to count
      }
    }
  }

  private cpuMs(fd: number): number | null {
    try {
      // a kept stat file belongs to its process even after the pid is reused: an ended one fails here
      const length = readSync(fd, this.buffer, 0, STAT_BYTES, 0);
      return cpuMsOf(fieldsOf(this.buffer.toString("latin1", 0, length)));
    } catch {
      return null;
    }
  }

  private forget(pid: number): void {
    const fd = this.files.get(pid);
    this.files.delete(pid);
    if (fd !== undefined) closeSync(fd);
  }
}
