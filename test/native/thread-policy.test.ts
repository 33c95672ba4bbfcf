import { describe, expect, it } from "vitest";
import { foreignBusyBetween } from "../../native/cpu-meter.ts";
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
