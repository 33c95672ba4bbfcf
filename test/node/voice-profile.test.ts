import { describe, expect, it } from "vitest";
import type { Evidence } from "../../inference-node/diarize/evidence.ts";
import { nameSpeakers, profileDistance } from "../../inference-node/diarize/voice-profile.ts";
import { nameTurns } from "../../inference-node/pipeline/known-speakers.ts";

/** A one-feature profile of the given block values. */
const profile = (...values: number[]): Evidence => ({
  n: Float64Array.of(values.length),
  sum: Float64Array.of(values.reduce((a, b) => a + b, 0)),
  sq: Float64Array.of(values.reduce((a, b) => a + b * b, 0)),
});

describe("known speaker naming", () => {
  it("measures a same-voice pair near 0 and a distinct pair far off, whatever the amount of speech", () => {
    const voice = profile(1, 2, 1, 2);
    expect(profileDistance(voice, profile(1, 2, 1, 2, 1, 2, 1, 2))).toBeCloseTo(0);
    expect(profileDistance(voice, profile(5, 6, 5, 6))).toBeGreaterThan(10);
    expect(profileDistance(voice, profile(1))).toBe(Number.POSITIVE_INFINITY);
  });

  it("gives each name to at most one cluster, best match first, and leaves far clusters unnamed", () => {
    const clusters = new Map([
      ["SPEAKER_00", profile(1, 2, 1, 2)],
      ["SPEAKER_01", profile(1.2, 2.2, 1.2, 2.2)],
      ["SPEAKER_02", profile(9, 10, 9, 10)],
    ]);
    const names = nameSpeakers(clusters, [{ name: "agent", profile: profile(1.2, 2.2, 1.2, 2.2) }], 1);
    expect([...names]).toEqual([["SPEAKER_01", "agent"]]);
  });

  it("renames a compatible call's match, and puts an enrolled voice's name beside the label", () => {
    const clusters = new Map([
      ["SPEAKER_00", profile(1, 2, 1, 2)],
      ["SPEAKER_01", profile(9, 10, 9, 10)],
    ]);
    const turns = [
      { start: 0, end: 2, speaker: "SPEAKER_00" },
      { start: 2, end: 4, speaker: "SPEAKER_01" },
    ];
    const voice = { name: "agent", profile: profile(1, 2, 1, 2) };
    expect(nameTurns(turns, clusters, [{ ...voice, enrolled: false }])).toEqual([
      { start: 0, end: 2, speaker: "agent" },
      { start: 2, end: 4, speaker: "SPEAKER_01" },
    ]);
    expect(nameTurns(turns, clusters, [{ ...voice, enrolled: true }])).toEqual([
      { start: 0, end: 2, speaker: "SPEAKER_00", speaker_name: "agent" },
      { start: 2, end: 4, speaker: "SPEAKER_01" },
    ]);
  });
});
