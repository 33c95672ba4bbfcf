import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Backoff, LEASE_POLL_BACKOFF } from "../../inference-node/backoff.ts";
import { type BackoffPolicy, backoffCeilingMs, backoffDelayMs, type Jitter } from "../../protocol/backoff.ts";

describe("backoffDelayMs (protocol/backoff.ts)", () => {
  const policy = (jitter: Jitter, floorMs?: number): BackoffPolicy => ({
    baseMs: 1000,
    maxMs: 15_000,
    jitter,
    floorMs,
  });

  it("doubles the ceiling per failure from baseMs to maxMs", () => {
    expect([1, 2, 3, 4, 5, 6, 99].map((n) => backoffCeilingMs(n, policy("none")))).toEqual([
      1000, 2000, 4000, 8000, 15_000, 15_000, 15_000,
    ]);
    expect(backoffDelayMs(3, policy("none"), () => 0)).toBe(4000);
  });

  it("equal jitter draws from the ceiling's upper half, full jitter from anywhere below it, above the floor", () => {
    expect(backoffDelayMs(3, policy("equal"), () => 0)).toBe(2000);
    expect(backoffDelayMs(3, policy("equal"), () => 0.999_999)).toBe(4000);
    expect(backoffDelayMs(3, policy("full"), () => 0.5)).toBe(2000);
    expect(backoffDelayMs(3, policy("full"), () => 0)).toBe(0);
    expect(backoffDelayMs(3, policy("full", 1000), () => 0)).toBe(1000);
  });

  it("stays within [floor or the jitter's low end, maxMs] in whole milliseconds, whatever the draw or count", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60_000 }),
        fc.integer({ min: 0, max: 600_000 }),
        fc.integer({ min: 1, max: 200 }),
        fc.double({ min: -1, max: 2, noNaN: true }),
        fc.constantFrom<Jitter>("none", "equal", "full"),
        (baseMs, extra, failures, draw, jitter) => {
          const rule: BackoffPolicy = { baseMs, maxMs: baseMs + extra, jitter };
          const ceiling = backoffCeilingMs(failures, rule);
          const wait = backoffDelayMs(failures, rule, () => draw);
          const low = jitter === "none" ? ceiling : jitter === "equal" ? Math.floor(ceiling / 2) : 0;
          expect(wait).toBeGreaterThanOrEqual(low);
          expect(wait).toBeLessThanOrEqual(rule.maxMs);
          expect(Number.isInteger(wait)).toBe(true);
        },
      ),
    );
  });
});

describe("Backoff (the node's retry loops)", () => {
  it("waits between half and all of a ceiling that doubles from baseMs to maxMs", () => {
    const low = new Backoff(LEASE_POLL_BACKOFF, () => 0);
    const high = new Backoff(LEASE_POLL_BACKOFF, () => 0.999_999);
    const lows = Array.from({ length: 8 }, () => low.next());
    const highs = Array.from({ length: 8 }, () => high.next());
    expect(lows).toEqual([250, 500, 1_000, 2_000, 4_000, 7_500, 7_500, 7_500]);
    expect(highs).toEqual([500, 1_000, 2_000, 4_000, 8_000, 15_000, 15_000, 15_000]);
  });

  it("spreads the waits of nodes that fail at the same moment", () => {
    const waits = new Set(Array.from({ length: 20 }, () => new Backoff(LEASE_POLL_BACKOFF).next()));
    expect(waits.size).toBeGreaterThan(1);
  });

  it("starts over after reset", () => {
    const backoff = new Backoff({ baseMs: 100, maxMs: 1_000, jitter: "equal" }, () => 0.5);
    backoff.next();
    backoff.next();
    backoff.reset();
    expect(backoff.next()).toBe(75);
  });
});
