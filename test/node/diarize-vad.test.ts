import { describe, expect, it } from "vitest";
import { EnergyVad } from "../../inference-node/diarize/vad.ts";

/** Runs energies (dBFS per 10 ms frame) through a VAD; returns voiced flags and intervals. */
function detect(energies: number[], options = {}) {
  const vad = new EnergyVad(options);
  const voiced = energies.map((db) => vad.update(db));
  return { voiced, intervals: vad.intervals() };
}

/** `frames` frames at `db`. */
const run = (frames: number, db: number) => new Array<number>(frames).fill(db);

describe("EnergyVad", () => {
  it("finds no speech in digital silence or in a steady noise floor", () => {
    expect(detect(run(1000, -100)).intervals).toEqual([]);
    const noise = Array.from({ length: 1000 }, (_, i) => -50 + Math.sin(i) * 0.5);
    expect(detect(noise).intervals).toEqual([]);
  });

  it("finds a tone burst over noise, padded by 5 frames on each side", () => {
    const { intervals, voiced } = detect([...run(300, -60), ...run(200, -20), ...run(300, -60)]);
    expect(intervals).toEqual([[295, 505]]);
    expect(voiced.filter(Boolean)).toHaveLength(200);
  });

  it("never calls quiet frames speech, however steady the floor below them", () => {
    expect(detect([...run(300, -90), ...run(200, -60), ...run(300, -90)]).intervals).toEqual([]);
  });

  it("bridges pauses up to the hangover and splits at longer ones", () => {
    const bursts = (gap: number) => [...run(200, -60), ...run(100, -20), ...run(gap, -60), ...run(100, -20)];
    expect(detect([...bursts(25), ...run(100, -60)]).intervals).toHaveLength(1);
    expect(detect([...bursts(40), ...run(100, -60)]).intervals).toEqual([
      [195, 305],
      [335, 445],
    ]);
  });

  it("drops clicks shorter than minVoicedFrames", () => {
    expect(detect([...run(200, -60), ...run(3, -10), ...run(200, -60)]).intervals).toEqual([]);
  });

  it("follows a rising noise floor instead of calling it speech", () => {
    // The floor steps from -60 to -40 dBFS: after the minimum tracker's memory (3 s) it is noise again.
    const { voiced } = detect([...run(300, -60), ...run(1000, -40)]);
    expect(voiced.slice(1000).some(Boolean)).toBe(false);
  });

  it("narrows the margin in noisy audio so speech 8 dB above the floor still counts", () => {
    const noisy = [...run(300, -30), ...run(100, -22), ...run(300, -30)];
    expect(detect(noisy).intervals).toHaveLength(1);
    expect(detect(noisy, { minMarginDb: 12 }).intervals).toEqual([]);
  });
});
