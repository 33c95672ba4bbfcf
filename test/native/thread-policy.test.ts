import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  clearlyIdleBetween,
  foreignBusyBetween,
  idleJustBefore,
  probeForeignBusy,
  recentlyIdle,
  type Sample,
  sustainedForeignBusy,
  sustainedPlatformBusy,
} from "../../native/cpu-meter.ts";
import { adaptiveDecisions, PROBE_MS } from "../../native/thread-decision.ts";
import { chooseThreading, fixedThreading, SPIN_POLL_LEVEL } from "../../native/thread-policy.ts";

describe("chooseThreading", () => {
  it("gives every thread asked for, polling, while that many cores are idle", () => {
    expect(chooseThreading({ requested: 2, cores: 2, foreignBusyCores: 0 })).toEqual({
      threads: 2,
      pollLevel: SPIN_POLL_LEVEL,
    });
    // a sliver of other work (a log line, a timer) does not take a core away
    expect(chooseThreading({ requested: 4, cores: 8, foreignBusyCores: 3.9 })).toEqual({
      threads: 4,
      pollLevel: SPIN_POLL_LEVEL,
    });
  });

  it("beside a busy neighbour uses one thread per idle core and stops polling", () => {
    expect(chooseThreading({ requested: 2, cores: 2, foreignBusyCores: 1 })).toEqual({
      threads: 1,
      pollLevel: 0,
    });
    expect(chooseThreading({ requested: 8, cores: 8, foreignBusyCores: 2.5 })).toEqual({
      threads: 5,
      pollLevel: 0,
    });
  });

  it("keeps one thread when every core is taken", () => {
    expect(chooseThreading({ requested: 4, cores: 2, foreignBusyCores: 6 })).toEqual({
      threads: 1,
      pollLevel: 0,
    });
  });

  it("fixed ignores the load", () => {
    expect(fixedThreading(3)).toEqual({ threads: 3, pollLevel: SPIN_POLL_LEVEL });
  });
});

describe("foreignBusyBetween", () => {
  it("is the machine's busy time less this process's own, per wall millisecond", () => {
    const from = { at: 0, machineBusyMs: 1000, ownMs: 100 };
    // 1 s: the machine was busy 1.5 s of CPU, of which 0.5 s was ours (our decode threads)
    expect(foreignBusyBetween(from, { at: 1000, machineBusyMs: 2500, ownMs: 600 })).toBeCloseTo(1);
    // tick rounding can make ours exceed the machine's: never below 0
    expect(foreignBusyBetween(from, { at: 1000, machineBusyMs: 1100, ownMs: 300 })).toBe(0);
  });
});

describe("sustainedForeignBusy", () => {
  /** Samples 250 ms apart whose intervals had these foreign busy cores (none of it ours). */
  const samplesOf = (foreign: number[]) => {
    const out = [{ at: 0, machineBusyMs: 0, ownMs: 0 }];
    for (const cores of foreign) {
      const last = out.at(-1)!;
      out.push({
        at: last.at + 250,
        machineBusyMs: last.machineBusyMs + cores * 250 + 100,
        ownMs: last.ownMs + 100,
      });
    }
    return out;
  };

  it("ignores the platform's own burst before a decode: a few busy samples in a quiet window", () => {
    // The Worker takes the upload and ffmpeg decodes the file: ~0.5 s of two busy cores.
    expect(sustainedForeignBusy(samplesOf([0, 0, 0, 0, 0, 0, 2, 2]))).toBe(0);
  });

  it("counts a neighbour busy through the whole window", () => {
    expect(sustainedForeignBusy(samplesOf([1, 1.2, 1, 1.1, 1, 1, 2, 1]))).toBeCloseTo(1);
  });

  it("is 0 before two samples exist", () => {
    expect(sustainedForeignBusy(samplesOf([]))).toBe(0);
  });

  it("reads intervals `stride` samples long, ending at the newest", () => {
    // fine samples: a neighbour busy in every other one averages 1 core over each pair of them
    const fine = samplesOf([2, 0, 2, 0, 2, 0, 2, 0]);
    expect(sustainedForeignBusy(fine)).toBe(0);
    expect(sustainedForeignBusy(fine, 2)).toBeCloseTo(1);
    // too few samples for one interval of the stride
    expect(sustainedForeignBusy(samplesOf([2]), 2)).toBe(0);
  });
});

describe("clearlyIdleBetween", () => {
  const at = (ms: number, machineBusyMs: number, ownMs: number) => ({ at: ms, machineBusyMs, ownMs });

  it("is idle when every tick the machine counted was this process's own", () => {
    // this process read its media for 28 ms; the machine counted it as three 10 ms ticks
    expect(clearlyIdleBetween(at(0, 0, 0), at(40, 30, 28))).toBe(true);
  });

  it("is not idle when another process took a tick", () => {
    expect(clearlyIdleBetween(at(0, 0, 0), at(40, 40, 28))).toBe(false);
  });

  it("tells nothing from a look too short for a busy core to have ticked", () => {
    expect(clearlyIdleBetween(at(0, 0, 0), at(8, 0, 0))).toBe(false);
  });

  it("besides the platform, leaves out only the named platform's ticks", () => {
    const from = { ...at(0, 0, 0), platform: new Map([[7, 500]]) };
    // wrangler dev (pid 7) served the media: the machine's two foreign ticks were its own
    const platformOnly = { ...at(40, 48, 28), platform: new Map([[7, 520]]) };
    expect(clearlyIdleBetween(from, platformOnly)).toBe(false);
    expect(clearlyIdleBetween(from, platformOnly, true)).toBe(true);
    // one of them was another process's
    const neighbourToo = { ...at(40, 48, 28), platform: new Map([[7, 510]]) };
    expect(clearlyIdleBetween(from, neighbourToo, true)).toBe(false);
  });
});

describe("idleJustBefore", () => {
  /**
   * Samples 50 ms apart over two seconds: `neighbour` and `platform` give each interval's busy cores
   * of a neighbour and of the named platform (pid 7); this process takes none.
   */
  const windowOf = (neighbour: (i: number) => number, platform: (i: number) => number) => {
    const out: Sample[] = [{ at: 0, machineBusyMs: 0, ownMs: 0, platform: new Map([[7, 0]]) }];
    for (let i = 0; i < 40; i++) {
      const last = out.at(-1)!;
      const platformMs = platform(i) * 50;
      out.push({
        at: last.at + 50,
        machineBusyMs: last.machineBusyMs + neighbour(i) * 50 + platformMs,
        ownMs: 0,
        platform: new Map([[7, (last.platform?.get(7) ?? 0) + platformMs]]),
      });
    }
    return out;
  };
  /** The read-back's end, 30 ms after the newest sample, the platform 30 ms busier at `platformCores`. */
  const nowAfter = (window: Sample[], neighbourCores: number, platformCores: number): Sample => {
    const last = window.at(-1)!;
    return {
      at: last.at + 30,
      machineBusyMs: last.machineBusyMs + (neighbourCores + platformCores) * 30,
      ownMs: 0,
      platform: new Map([[7, (last.platform?.get(7) ?? 0) + platformCores * 30]]),
    };
  };
  const unnamed = ({ platform: _, ...sample }: Sample): Sample => sample;

  it("reads a neighbour that just stopped and the platform's burst for this request as idle", () => {
    // whisper-server decoded for 1.5 s, then wrangler dev took the upload and served the media
    const window = windowOf(
      (i) => (i < 30 ? 2 : 0),
      (i) => (i >= 34 ? 1 : 0),
    );
    expect(idleJustBefore(window, nowAfter(window, 0, 1))).toBe(true);
    // the same ticks with no platform named are another process's: the decode looks again
    expect(idleJustBefore(window.map(unnamed), unnamed(nowAfter(window, 0, 1)))).toBe(false);
  });

  it("still sees a neighbour busy beside the platform's burst", () => {
    const window = windowOf(
      () => 1,
      (i) => (i >= 34 ? 1 : 0),
    );
    expect(idleJustBefore(window, nowAfter(window, 1, 1))).toBe(false);
  });

  it("counts a platform busy through the whole window as a neighbour", () => {
    // a room relaying to a hundred listeners keeps workerd on a core
    const window = windowOf(
      () => 0,
      () => 1,
    );
    expect(sustainedPlatformBusy(window, 5)).toBeCloseTo(1);
    expect(idleJustBefore(window, nowAfter(window, 0, 1))).toBe(false);
  });
});

describe("adaptiveDecisions", () => {
  /** Readings with a fixed sustained figure and a look now that answers `now` and counts its calls. */
  const readings = (sustained: number, now: number, idleJustBefore = false) => {
    const looks: number[] = [];
    return {
      looks,
      cores: () => 2,
      sustained: () => sustained,
      recentlyIdle: () => idleJustBefore,
      now: async (ms: number) => {
        looks.push(ms);
        return now;
      },
    };
  };

  it("decides at once, without looking again, when the sustained load costs no threads", () => {
    const r = readings(0, 2);
    expect(adaptiveDecisions(r).file(2)).toEqual({ threads: 2, pollLevel: SPIN_POLL_LEVEL });
    expect(r.looks).toEqual([]);
  });

  it("gives a file decode its threads back when the neighbour that loaded the window has stopped", async () => {
    // another server's decode kept both cores busy until a moment ago
    const r = readings(2, 0.05);
    await expect(adaptiveDecisions(r).file(2)).resolves.toEqual({ threads: 2, pollLevel: SPIN_POLL_LEVEL });
    expect(r.looks).toEqual([PROBE_MS]);
  });

  it("gives the threads back at once, without a look, when the moments before were idle", () => {
    // the neighbour stopped before the request came in: the media read and VAD since saw no foreign tick
    const r = readings(2, 2, true);
    expect(adaptiveDecisions(r).file(2)).toEqual({ threads: 2, pollLevel: SPIN_POLL_LEVEL });
    expect(r.looks).toEqual([]);
  });

  it("keeps the cut when the neighbour is still busy now", async () => {
    const r = readings(1, 1.1);
    await expect(adaptiveDecisions(r).file(2)).resolves.toEqual({ threads: 1, pollLevel: 0 });
  });

  it("never lets a short burst now cost threads the sustained figure leaves", async () => {
    const r = readings(0, 2);
    expect(adaptiveDecisions(r).file(2)).toEqual({ threads: 2, pollLevel: SPIN_POLL_LEVEL });
  });

  it("decides a stream's decode at once from the sustained load: no wait in a live path", () => {
    const r = readings(1, 0);
    expect(adaptiveDecisions(r).stream(2)).toEqual({ threads: 1, pollLevel: 0 });
    expect(r.looks).toEqual([]);
  });

  it("passes an invalid count through at once for the addon's option check", () => {
    const r = readings(2, 0);
    expect(adaptiveDecisions(r).file(0)).toEqual({ threads: 0, pollLevel: SPIN_POLL_LEVEL });
    expect(r.looks).toEqual([]);
  });
});

describe("probeForeignBusy and recentlyIdle", () => {
  it("count a busy neighbour process", async () => {
    const neighbour = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      // the neighbour spins a whole core; on a loaded machine it gets at least a share of one
      expect(await probeForeignBusy(300)).toBeGreaterThan(0.3);
      expect(recentlyIdle()).toBe(false);
    } finally {
      neighbour.kill("SIGKILL");
    }
  });
});
