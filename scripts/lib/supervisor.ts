/**
 * Keeps the local platform's processes running: a process that exits is started again after an
 * exponential backoff (1 s, 2 s, 4 s ... 30 s; back to 1 s once it had run a stable minute), and every
 * exit and restart is logged. A process marked `critical` is not restarted: its exit ends the supervisor
 * (npm start stops everything when wrangler dev ends). `stop()` ends every child, SIGTERM first and
 * SIGKILL for one that does not exit in time.
 */
import type { ChildProcess } from "node:child_process";
import { backoffDelayMs } from "../../protocol/backoff.ts";

export interface Backoff {
  /** Wait before the first restart. */
  initialMs: number;
  /** Longest wait between restarts. */
  maxMs: number;
  /** A process that ran this long before it exited counts as healthy: the wait starts over. */
  stableMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 1_000, maxMs: 30_000, stableMs: 60_000 };

/**
 * The wait before a restart after `quickExits` exits in a row that each came before `stableMs` of
 * uptime (the first is 1): `initialMs` doubling per quick exit up to `maxMs`, no jitter (one machine,
 * nothing to spread out).
 *
 * @example restartDelay(4, DEFAULT_BACKOFF) // 8_000
 */
export function restartDelay(quickExits: number, backoff: Backoff): number {
  return backoffDelayMs(quickExits, { baseMs: backoff.initialMs, maxMs: backoff.maxMs, jitter: "none" });
}

export interface ServiceSpec {
  /** Name in the log lines, e.g. "inference node". */
  name: string;
  /** Starts one run of the process (called again for each restart). */
  spawn: () => ChildProcess;
  /** Not restarted: its exit stops the supervisor and is reported to `onCriticalExit`. */
  critical?: boolean;
}

export type SupervisorEvent =
  | { type: "started"; service: string; pid: number | undefined; restarts: number }
  | {
      type: "exited";
      service: string;
      pid: number | undefined;
      code: number | null;
      signal: string | null;
      uptimeMs: number;
    }
  | { type: "restart-scheduled"; service: string; delayMs: number; restarts: number };

export interface SupervisorOptions {
  backoff?: Backoff;
  /** Where log lines go (default: stderr). */
  log?: (line: string) => void;
  /** Observes every start, exit and scheduled restart (tests and benches). */
  onEvent?: (event: SupervisorEvent) => void;
  /** A critical process exited (its code, or 1 when a signal ended it); every other child has been stopped. */
  onCriticalExit?: (service: string, code: number) => void;
  /** Time a child gets after SIGTERM before SIGKILL. */
  stopTimeoutMs?: number;
}

/** One supervised process: its current run (null while it waits for a restart) and how often it restarted. */
export interface Supervised {
  readonly name: string;
  readonly child: ChildProcess | null;
  readonly restarts: number;
}

interface Entry extends Supervised {
  spec: ServiceSpec;
  child: ChildProcess | null;
  restarts: number;
  /** Exits in a row that came before `stableMs` of uptime (this one included once it exits). */
  quickExits: number;
  timer: ReturnType<typeof setTimeout> | null;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/**
 * @example
 * const supervisor = new Supervisor({ onCriticalExit: (_name, code) => supervisor.stop().then(() => process.exit(code)) });
 * supervisor.start({ name: "wrangler dev", spawn: () => startWranglerDev(8787), critical: true });
 * supervisor.start({ name: "inference node", spawn: () => spawnNode() });
 */
export class Supervisor {
  private readonly entries: Entry[] = [];
  private stopping = false;
  private readonly backoff: Backoff;
  private readonly log: (line: string) => void;

  constructor(private readonly options: SupervisorOptions = {}) {
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.log = options.log ?? ((line) => console.error(line));
  }

  /** Starts a process and keeps it running until `stop()`. */
  start(spec: ServiceSpec): Supervised {
    const entry: Entry = { name: spec.name, spec, child: null, restarts: 0, quickExits: 0, timer: null };
    this.entries.push(entry);
    this.run(entry);
    return entry;
  }

  private run(entry: Entry): void {
    entry.timer = null;
    if (this.stopping) return;
    const child = entry.spec.spawn();
    entry.child = child;
    const startedAt = Date.now();
    this.options.onEvent?.({
      type: "started",
      service: entry.name,
      pid: child.pid,
      restarts: entry.restarts,
    });
    let ended = false;
    const onEnd = (code: number | null, signal: string | null) => {
      if (ended) return;
      ended = true;
      entry.child = null;
      const uptimeMs = Date.now() - startedAt;
      this.options.onEvent?.({ type: "exited", service: entry.name, pid: child.pid, code, signal, uptimeMs });
      if (this.stopping) return;
      const how = signal ? `signal ${signal}` : `code ${code}`;
      if (entry.spec.critical) {
        this.log(
          `[supervisor] ${entry.name} exited (${how}) after ${seconds(uptimeMs)}; stopping everything`,
        );
        void this.stop().then(() => this.options.onCriticalExit?.(entry.name, code ?? 1));
        return;
      }
      entry.quickExits = uptimeMs >= this.backoff.stableMs ? 1 : entry.quickExits + 1;
      const delayMs = restartDelay(entry.quickExits, this.backoff);
      entry.restarts++;
      this.log(
        `[supervisor] ${entry.name} exited (${how}) after ${seconds(uptimeMs)}; restart #${entry.restarts} in ${seconds(delayMs)}`,
      );
      this.options.onEvent?.({
        type: "restart-scheduled",
        service: entry.name,
        delayMs,
        restarts: entry.restarts,
      });
      entry.timer = setTimeout(() => this.run(entry), delayMs);
    };
    child.once("exit", onEnd);
    // A process that could not be spawned at all (ENOENT) may emit only "error".
    child.once("error", (error) => {
      if (child.pid === undefined) {
        this.log(`[supervisor] ${entry.name} could not start: ${error.message}`);
        onEnd(null, null);
      }
    });
  }

  /** Stops every child (SIGTERM, then SIGKILL after `stopTimeoutMs`) and restarts none; resolves once all exited. */
  async stop(): Promise<void> {
    this.stopping = true;
    const timeoutMs = this.options.stopTimeoutMs ?? 10_000;
    await Promise.all(
      this.entries.map(async (entry) => {
        if (entry.timer) clearTimeout(entry.timer);
        entry.timer = null;
        const child = entry.child;
        if (!child || child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        const killer = setTimeout(() => {
          this.log(`[supervisor] ${entry.name} did not stop within ${seconds(timeoutMs)}; killing it`);
          child.kill("SIGKILL");
        }, timeoutMs);
        await exited;
        clearTimeout(killer);
      }),
    );
  }
}
