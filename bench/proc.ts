/**
 * What the benches read of running processes, from Linux's /proc: resident memory, CPU time, the
 * process tree (wrangler dev runs workerd as its children), and open TCP connections.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { descendantsOf, processCpuMs } from "../native/process-tree-cpu.ts";

/** Resident set size (VmRSS) and its peak (VmHWM) in MiB; null when the process is gone. */
export function memoryMiB(pid: number): { rss: number; peak: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
    return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
  } catch {
    return null;
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

/** Every descendant of `root` whose command line matches `match` (e.g. wrangler dev's workerd). */
export function descendants(root: number, match: RegExp): number[] {
  return descendantsOf(root).filter((pid) => pid !== root && match.test(commandOf(pid)));
}

/**
 * CPU time (user + system) the processes used so far, in ms (Linux counts it in 10 ms ticks); NaN when
 * there are none or one is gone.
 */
export function cpuMs(pids: readonly number[]): number {
  if (pids.length === 0) return Number.NaN;
  let ms = 0;
  for (const pid of pids) ms += processCpuMs(pid) ?? Number.NaN;
  return ms;
}

/** Socket inodes the process holds open. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        if (inode) inodes.add(inode);
      } catch {
        // closed while we looked
      }
    }
  } catch {
    // the process is gone
  }
  return inodes;
}

const ESTABLISHED = "01";

/**
 * The process's established TCP connections (IPv4 and IPv6), each as "local port -> remote port",
 * read by matching its socket inodes against /proc/net/tcp{,6}.
 */
export function tcpConnections(pid: number): string[] {
  const inodes = socketInodes(pid);
  const found: string[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== ESTABLISHED || !inodes.has(fields[9] ?? "")) continue;
      const port = (address: string | undefined) => Number.parseInt(address?.split(":")[1] ?? "0", 16);
      found.push(`${port(fields[1])} -> ${port(fields[2])}`);
    }
  }
  return found;
}
