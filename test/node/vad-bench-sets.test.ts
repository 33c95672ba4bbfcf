import { describe, expect, it } from "vitest";
import { mixUnder, scoreFrames, spacedOut, truthFrames } from "../../bench/vad-sets.ts";
import { pinkNoise, seededRandom } from "../helpers/dialogue.ts";

/** The `vad` bench's ground truth and scoring: a wrong figure there would mislead every comparison. */

const SR = 16_000;
const turn = (start: number, end: number) => ({ start, end, speaker: "a" });

describe("vad bench sets", () => {
  it("labels a 10 ms frame speech when its centre lies inside a turn", () => {
    const truth = truthFrames([turn(0.1, 0.25)], SR / 2);
    expect(truth).toHaveLength(50);
    expect(truth.flatMap((speech, f) => (speech ? [f] : []))).toEqual(
      Array.from({ length: 15 }, (_, i) => 10 + i),
    );
  });

  it("scores 32 ms decisions on the 10 ms grid, split into misses and false alarms", () => {
    const turns = [turn(0.512, 1.024)]; // Silero frames 16..31 exactly
    const samples = 2 * SR;
    const perfect = Array.from({ length: 62 }, (_, i) => i >= 16 && i < 32);
    const exact = scoreFrames(perfect, 512, turns, samples);
    expect(exact.correct).toBe(exact.frames);
    const late = perfect.map((_, i) => i >= 20 && i < 36); // 128 ms late at both ends
    const score = scoreFrames(late, 512, turns, samples);
    expect(score.frames).toBe(200);
    expect(score.missed).toBeGreaterThan(10);
    expect(score.falseAlarm).toBeGreaterThan(10);
    expect(score.correct + score.missed + score.falseAlarm).toBe(score.frames);
    // the collar leaves out frames within 0.1 s of an edge only
    expect(score.collaredFrames).toBe(200 - 2 * 20);
    expect(score.collaredCorrect).toBeLessThan(score.collaredFrames);
  });

  it("mixes noise at the asked SNR, measured over the speech samples only", () => {
    const speech = new Float32Array(3 * SR);
    for (let s = SR; s < 2 * SR; s++) speech[s] = 0.3 * Math.sin((2 * Math.PI * 200 * s) / SR);
    const dialogue = { pcm: speech, turns: [turn(1, 2)], seconds: 3 };
    for (const snr of [10, 0]) {
      const { pcm, snrDb } = mixUnder(dialogue, pinkNoise(3 * SR, seededRandom(1)), snr);
      expect(snrDb).toBeCloseTo(snr, 0);
      const noisePower = pcm.subarray(0, SR).reduce((sum, x) => sum + x * x, 0) / SR;
      expect(10 * Math.log10(0.045 / noisePower)).toBeCloseTo(snr, 0); // 0.3^2 / 2: the sine's power
    }
  });

  it("re-lays a dialogue with fixed pauses, each turn's audio moved with it", () => {
    const pcm = new Float32Array(2 * SR);
    pcm.fill(0.5, 0.2 * SR, 0.7 * SR);
    pcm.fill(-0.5, 0.9 * SR, 1.4 * SR);
    const spaced = spacedOut({ pcm, turns: [turn(0.2, 0.7), turn(0.9, 1.4)], seconds: 2 }, 1.5, 3);
    expect(spaced.turns.map((t) => [t.start, t.end])).toEqual([
      [0.5, 1],
      [2.5, 3],
    ]);
    expect(spaced.pcm[Math.round(0.75 * SR)]).toBe(0.5);
    expect(spaced.pcm[Math.round(2.75 * SR)]).toBe(-0.5);
    expect(spaced.seconds).toBeCloseTo(4.5, 6);
  });
});
