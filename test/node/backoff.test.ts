import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Backoff, type BackoffPolicy, LEASE_POLL_BACKOFF } from "../../inference-node/backoff.ts";

describe("Backoff", () => {
  it("waits between half and all of a ceiling that doubles from initialMs to maxMs", () => {
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
    const backoff = new Backoff({ initialMs: 100, maxMs: 1_000 }, () => 0.5);
    backoff.next();
    backoff.next();
    backoff.reset();
    expect(backoff.next()).toBe(75);
  });

  it("never waits less than half the ceiling nor more than maxMs, whatever the draw or count", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60_000 }),
        fc.integer({ min: 1, max: 600_000 }),
        fc.array(fc.double({ min: -1, max: 2, noNaN: true }), { minLength: 1, maxLength: 80 }),
        (initialMs, extra, draws) => {
          const policy: BackoffPolicy = { initialMs, maxMs: initialMs + extra };
          let i = 0;
          const backoff = new Backoff(policy, () => draws[i++ % draws.length] ?? 0);
          draws.forEach((_, failure) => {
            const ceiling = Math.min(policy.maxMs, initialMs * 2 ** failure);
            const wait = backoff.next();
            expect(wait).toBeGreaterThanOrEqual(Math.floor(ceiling / 2));
            expect(wait).toBeLessThanOrEqual(policy.maxMs);
            expect(Number.isInteger(wait)).toBe(true);
          });
        },
      ),
    );
  });
});
