import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import {
  type Backoff,
  DEFAULT_BACKOFF,
  restartDelay,
  Supervisor,
  type SupervisorEvent,
} from "../../scripts/lib/supervisor.ts";

/** A real child process running `script` in Node. */
const node = (script: string) => () => spawn(process.execPath, ["-e", script], { stdio: "ignore" });
const RUNS_FOREVER = node("setInterval(() => {}, 1000)");
const CRASHES_AT_ONCE = node("process.exit(3)");
const IGNORES_SIGTERM = node("process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)");

function alive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A supervisor whose events and log lines the test can wait for. */
function observed(backoff: Backoff, extra: { stopTimeoutMs?: number } = {}) {
  const events: SupervisorEvent[] = [];
  const lines: string[] = [];
  const listeners = new Set<() => void>();
  const critical: { service: string; code: number }[] = [];
  const supervisor = new Supervisor({
    backoff,
    log: (line) => lines.push(line),
    onEvent: (event) => {
      events.push(event);
      for (const listener of listeners) listener();
    },
    onCriticalExit: (service, code) => critical.push({ service, code }),
    ...extra,
  });
  /** Resolves once `count` events match (or rejects after `timeoutMs`). */
  const waitFor = (match: (e: SupervisorEvent) => boolean, count = 1, timeoutMs = 10_000) =>
    new Promise<SupervisorEvent[]>((resolve, reject) => {
      const check = () => {
        const found = events.filter(match);
        if (found.length < count) return false;
        listeners.delete(check);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`timed out waiting for ${count} events; saw ${JSON.stringify(events)}`));
      }, timeoutMs);
      listeners.add(check);
      check();
    });
  return { supervisor, events, lines, critical, waitFor };
}

const started = (e: SupervisorEvent) => e.type === "started";
const stopAfter: Supervisor[] = [];

afterEach(async () => {
  await Promise.all(stopAfter.splice(0).map((supervisor) => supervisor.stop()));
});

describe("restartDelay", () => {
  it("doubles after each quick exit up to the cap (a stable run starts the count over)", () => {
    const delays = Array.from({ length: 8 }, (_, i) => restartDelay(i + 1, DEFAULT_BACKOFF));
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });
});

describe("Supervisor", () => {
  it("restarts a child that was SIGKILLed, as a new process, and logs why", async () => {
    const { supervisor, lines, waitFor } = observed({ initialMs: 100, maxMs: 1_000, stableMs: 60_000 });
    stopAfter.push(supervisor);
    const service = supervisor.start({ name: "inference node", spawn: RUNS_FOREVER });
    const [first] = await waitFor(started);
    const firstPid = first?.type === "started" ? first.pid : undefined;
    expect(alive(firstPid)).toBe(true);

    process.kill(firstPid!, "SIGKILL");
    const runs = await waitFor(started, 2);
    const second = runs[1];
    expect(second).toMatchObject({ type: "started", restarts: 1 });
    const secondPid = second?.type === "started" ? second.pid : undefined;
    expect(secondPid).not.toBe(firstPid);
    expect(alive(secondPid)).toBe(true);
    expect(alive(firstPid)).toBe(false);
    expect(service.restarts).toBe(1);
    expect(service.child?.pid).toBe(secondPid);
    expect(lines).toEqual([
      expect.stringMatching(/inference node exited \(signal SIGKILL\) .*restart #1 in 0\.1 s/),
    ]);
  });

  it("backs off exponentially while a child keeps crashing, up to the cap", async () => {
    const { supervisor, waitFor } = observed({ initialMs: 40, maxMs: 200, stableMs: 60_000 });
    stopAfter.push(supervisor);
    supervisor.start({ name: "crasher", spawn: CRASHES_AT_ONCE });
    const scheduled = await waitFor((e) => e.type === "restart-scheduled", 5);
    expect(scheduled.map((e) => (e.type === "restart-scheduled" ? e.delayMs : null))).toEqual([
      40, 80, 160, 200, 200,
    ]);
    const exits = await waitFor((e) => e.type === "exited", 5);
    expect(exits.every((e) => e.type === "exited" && e.code === 3)).toBe(true);
  });

  it("starts the backoff over for a child that had run stably before it exited", async () => {
    const { supervisor, waitFor } = observed({ initialMs: 40, maxMs: 1_000, stableMs: 150 });
    stopAfter.push(supervisor);
    supervisor.start({ name: "steady", spawn: node("setTimeout(() => process.exit(1), 400)") });
    const scheduled = await waitFor((e) => e.type === "restart-scheduled", 3);
    expect(scheduled.map((e) => (e.type === "restart-scheduled" ? e.delayMs : null))).toEqual([40, 40, 40]);
  });

  it("stops every child on stop() and restarts none, not even one whose restart was pending", async () => {
    const { supervisor, events, waitFor } = observed({ initialMs: 300, maxMs: 1_000, stableMs: 60_000 });
    supervisor.start({ name: "a", spawn: RUNS_FOREVER });
    supervisor.start({ name: "b", spawn: RUNS_FOREVER });
    supervisor.start({ name: "c", spawn: CRASHES_AT_ONCE });
    await waitFor(started, 3);
    await waitFor((e) => e.type === "restart-scheduled" && e.service === "c");
    const pids = events.filter(started).map((e) => (e.type === "started" ? e.pid : undefined));

    await supervisor.stop();

    for (const pid of pids) expect(alive(pid)).toBe(false);
    const startsAtStop = events.filter(started).length;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(events.filter(started)).toHaveLength(startsAtStop);
    expect(
      events
        .filter((e) => e.type === "exited" && (e.service === "a" || e.service === "b"))
        .map((e) => e.type === "exited" && e.signal),
    ).toEqual(["SIGTERM", "SIGTERM"]);
  });

  it("kills a child that ignores SIGTERM once its stop timeout has passed", async () => {
    const { supervisor, lines, waitFor } = observed(DEFAULT_BACKOFF, { stopTimeoutMs: 300 });
    supervisor.start({ name: "stubborn", spawn: IGNORES_SIGTERM });
    const [run] = await waitFor(started);
    // Give the child time to install its SIGTERM handler.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await supervisor.stop();
    expect(alive(run?.type === "started" ? run.pid : undefined)).toBe(false);
    expect(await waitFor((e) => e.type === "exited")).toEqual([
      expect.objectContaining({ signal: "SIGKILL" }),
    ]);
    expect(lines).toContainEqual(expect.stringMatching(/stubborn did not stop within 0\.3 s; killing it/));
  });

  it("stops everything when a critical child exits, and restarts nothing", async () => {
    const { supervisor, critical, lines, waitFor } = observed({
      initialMs: 40,
      maxMs: 200,
      stableMs: 60_000,
    });
    stopAfter.push(supervisor);
    supervisor.start({ name: "inference node", spawn: RUNS_FOREVER });
    const [node] = await waitFor(started);
    supervisor.start({ name: "wrangler dev", spawn: CRASHES_AT_ONCE, critical: true });
    const exits = await waitFor((e) => e.type === "exited", 2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(exits.map((e) => e.service).sort()).toEqual(["inference node", "wrangler dev"]);
    expect(alive(node?.type === "started" ? node.pid : undefined)).toBe(false);
    expect(critical).toEqual([{ service: "wrangler dev", code: 3 }]);
    expect(lines).toEqual([expect.stringMatching(/wrangler dev exited \(code 3\) .*stopping everything/)]);
    expect(await waitFor(started)).toHaveLength(2);
  });

  it("keeps retrying a program that cannot be spawned at all", async () => {
    const { supervisor, lines, waitFor } = observed({ initialMs: 40, maxMs: 200, stableMs: 60_000 });
    stopAfter.push(supervisor);
    supervisor.start({
      name: "missing",
      spawn: () => spawn("/nonexistent/voxedge-program", [], { stdio: "ignore" }),
    });
    await waitFor((e) => e.type === "restart-scheduled", 2);
    expect(lines[0]).toMatch(/missing could not start: spawn \/nonexistent\/voxedge-program ENOENT/);
  });
});
