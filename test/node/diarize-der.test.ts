import { describe, expect, it } from "vitest";
import { diarizationErrorRate, maxAssignment } from "../../inference-node/diarize/der.ts";

const turn = (start: number, end: number, speaker: string) => ({ start, end, speaker });

describe("maxAssignment", () => {
  it("picks the one-to-one matching with the largest total", () => {
    expect(
      maxAssignment([
        [1, 5],
        [4, 1],
      ]),
    ).toEqual([1, 0]);
    expect(maxAssignment([[3, 2, 1]])).toEqual([0]);
    expect(maxAssignment([[1], [7], [2]])).toEqual([-1, 0, -1]);
    expect(maxAssignment([])).toEqual([]);
  });

  it("agrees with brute force on random rectangular matrices", () => {
    let state = 42;
    const next = () => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state / 2 ** 31;
    };
    const best = (m: number[][], row = 0, used = new Set<number>()): number => {
      if (row === m.length) return 0;
      let top = best(m, row + 1, used); // leave this row unmatched
      for (let c = 0; c < (m[row]?.length ?? 0); c++) {
        if (used.has(c)) continue;
        used.add(c);
        top = Math.max(top, m[row]![c]! + best(m, row + 1, used));
        used.delete(c);
      }
      return top;
    };
    for (let trial = 0; trial < 50; trial++) {
      const rows = 1 + Math.floor(next() * 5);
      const cols = 1 + Math.floor(next() * 5);
      const m = Array.from({ length: rows }, () =>
        Array.from({ length: cols }, () => Math.round(next() * 20)),
      );
      const assignment = maxAssignment(m);
      const columns = assignment.filter((c) => c >= 0);
      expect(new Set(columns).size).toBe(columns.length);
      expect(assignment.reduce((sum, c, r) => sum + (c >= 0 ? m[r]![c]! : 0), 0)).toBe(best(m));
    }
  });
});

describe("diarizationErrorRate", () => {
  const reference = [turn(0, 10, "alice"), turn(10, 20, "bob")];

  it("is 0 for a perfect hypothesis whatever its labels", () => {
    const result = diarizationErrorRate(reference, [turn(0, 10, "SPEAKER_01"), turn(10, 20, "SPEAKER_00")]);
    expect(result).toEqual({ der: 0, missed: 0, falseAlarm: 0, confusion: 0, total: 20 });
  });

  it("counts missed speech and false alarms", () => {
    const result = diarizationErrorRate(reference, [turn(2, 10, "a"), turn(10, 25, "b")]);
    expect(result.missed).toBeCloseTo(2, 12);
    expect(result.falseAlarm).toBeCloseTo(5, 12);
    expect(result.confusion).toBeCloseTo(0, 12);
    expect(result.der).toBeCloseTo(7 / 20, 12);
    expect(diarizationErrorRate(reference, []).der).toBe(1);
  });

  it("counts confusion under the best mapping only", () => {
    // One hypothesis speaker for everything: the best mapping matches it to one reference speaker.
    expect(diarizationErrorRate(reference, [turn(0, 20, "x")]).confusion).toBeCloseTo(10, 12);
    // Speaker x says 8 s of alice and 3 s of bob; y says the rest of bob: x↔alice, y↔bob.
    const split = [turn(0, 8, "x"), turn(8, 10, "y"), turn(10, 13, "x"), turn(13, 20, "y")];
    const result = diarizationErrorRate(reference, split);
    expect(result.confusion).toBeCloseTo(5, 12);
    expect(result.der).toBeCloseTo(0.25, 12);
  });

  it("scores overlapping reference speech once per speaker", () => {
    const overlapped = [turn(0, 10, "alice"), turn(5, 10, "bob")];
    const result = diarizationErrorRate(overlapped, [turn(0, 10, "a")]);
    expect(result.total).toBeCloseTo(15, 12);
    expect(result.missed).toBeCloseTo(5, 12);
    expect(result.der).toBeCloseTo(5 / 15, 12);
  });

  it("skips a collar around every reference boundary when asked", () => {
    const late = [turn(0.2, 10.2, "a"), turn(10.2, 20, "b")];
    expect(diarizationErrorRate(reference, late).der).toBeGreaterThan(0);
    const scored = diarizationErrorRate(reference, late, { collar: 0.25 });
    expect(scored.der).toBe(0);
    expect(scored.total).toBeCloseTo(20 - 0.25 - 0.5 - 0.25, 12);
  });

  it("is 0 with no reference speech and ignores empty turns", () => {
    expect(diarizationErrorRate([], []).der).toBe(0);
    expect(diarizationErrorRate([turn(0, 1, "a"), turn(3, 3, "b")], [turn(0, 1, "x")]).der).toBe(0);
  });
});
