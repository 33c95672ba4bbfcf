import { describe, expect, it } from "vitest";
import { DecodeGate, type DecodeKind } from "../../inference-node/live/decode-gate.ts";
import { AbortError } from "../../native/index.ts";
import { sleep } from "./live-helpers.ts";

/** A decode of `ms` that records when it ran and stops early (rejecting) when its signal aborts. */
function work(log: string[], name: string, ms: number) {
  return (signal: AbortSignal) =>
    new Promise<string>((resolve, reject) => {
      log.push(`start ${name}`);
      const timer = setTimeout(() => {
        log.push(`end ${name}`);
        resolve(name);
      }, ms);
      signal.addEventListener("abort", () => {
        clearTimeout(timer);
        log.push(`abort ${name}`);
        reject(new AbortError(signal.reason));
      });
    });
}

describe("DecodeGate", () => {
  it("runs at most `slots` decodes at once", async () => {
    const gate = new DecodeGate(2, 1);
    let running = 0;
    let peak = 0;
    const decode = async () => {
      running++;
      peak = Math.max(peak, running);
      await sleep(10);
      running--;
    };
    await Promise.all(Array.from({ length: 7 }, () => gate.run("interim", decode)));
    expect(peak).toBe(2);
    expect(gate.active).toBe(0);
    expect(gate.queued).toBe(0);
  });

  it("admits waiting finals before waiting interims, each kind in arrival order", async () => {
    const gate = new DecodeGate(1, 1);
    const log: string[] = [];
    const order: [DecodeKind, string][] = [
      ["final", "f0"],
      ["interim", "i1"],
      ["interim", "i2"],
      ["final", "f3"],
      ["final", "f4"],
    ];
    await Promise.all(order.map(([kind, name]) => gate.run(kind, work(log, name, 5))));
    expect(log.filter((l) => l.startsWith("start"))).toEqual([
      "start f0",
      "start f3",
      "start f4",
      "start i1",
      "start i2",
    ]);
  });

  it("takes a running interim's slot for a final that finds every slot held; finals are never preempted", async () => {
    const gate = new DecodeGate(1, 1);
    const log: string[] = [];
    const interim = gate.run("interim", work(log, "interim", 1_000));
    await sleep(5);
    const final = gate.run("final", work(log, "final", 5));
    await expect(interim).rejects.toBeInstanceOf(AbortError);
    await expect(final).resolves.toBe("final");
    expect(log).toEqual(["start interim", "abort interim", "start final", "end final"]);

    const first = gate.run("final", work(log, "f1", 30));
    await sleep(5);
    const second = gate.run("final", work(log, "f2", 5));
    await expect(Promise.all([first, second])).resolves.toEqual(["f1", "f2"]);
    expect(log.slice(4)).toEqual(["start f1", "end f1", "start f2", "end f2"]);
  });

  it("drops a waiting decode whose signal aborts without running it; a running one gets the abort", async () => {
    const gate = new DecodeGate(1, 1);
    const log: string[] = [];
    const holder = new AbortController();
    const held = gate.run("final", work(log, "held", 1_000), holder.signal);
    const waiter = new AbortController();
    const waiting = gate.run("interim", work(log, "waiting", 5), waiter.signal);
    expect(gate.queued).toBe(1);
    waiter.abort();
    await expect(waiting).rejects.toBeInstanceOf(AbortError);
    expect(gate.queued).toBe(0);
    holder.abort();
    await expect(held).rejects.toBeInstanceOf(AbortError);
    expect(log).toEqual(["start held", "abort held"]);
    await expect(gate.run("final", work(log, "late", 1), holder.signal)).rejects.toBeInstanceOf(AbortError);
    await expect(gate.run("final", work(log, "next", 1))).resolves.toBe("next");
  });

  it("frees the slot when a decode fails or throws", async () => {
    const gate = new DecodeGate(1, 1);
    await expect(gate.run("final", () => Promise.reject(new Error("decoder broke")))).rejects.toThrow(
      "decoder broke",
    );
    await expect(
      gate.run("final", () => {
        throw new Error("bad call");
      }),
    ).rejects.toThrow("bad call");
    await expect(gate.run("interim", async () => "ok")).resolves.toBe("ok");
    expect(gate.active).toBe(0);
  });

  it("gives a decode alone the threads per decode, and splits the cores when several wait", async () => {
    const gate = new DecodeGate(2, 2);
    const given: number[] = [];
    const decode = async (_: AbortSignal, threads: number) => {
      given.push(threads);
      await sleep(10);
    };
    await gate.run("final", decode);
    expect(given).toEqual([2]);
    given.length = 0;
    const blocker = gate.run("final", decode); // holds both threads
    await Promise.all([blocker, ...[1, 2, 3].map(() => gate.run("final", decode))]);
    // the three waiting ones ran one thread each, two at a time
    expect(given).toEqual([2, 1, 1, 1]);
  });

  it("refuses a gate without cores or threads", () => {
    expect(() => new DecodeGate(0, 1)).toThrow(RangeError);
    expect(() => new DecodeGate(2, 0)).toThrow(RangeError);
  });
});
