import { describe, expect, it } from "vitest";
import { FRAME_HOP, FRAME_LENGTH, SAMPLE_RATE } from "../../inference-node/diarize/features.ts";
import { PitchTracker } from "../../inference-node/diarize/pitch.ts";

/** A voice-like buzz: harmonics of `f0` with 1/h amplitudes up to 4 kHz. */
function buzz(f0: number, seconds: number): Float32Array {
  return Float32Array.from({ length: Math.round(seconds * SAMPLE_RATE) }, (_, i) => {
    let x = 0;
    for (let h = 1; h * f0 < 4000; h++) x += Math.sin((2 * Math.PI * f0 * h * i) / SAMPLE_RATE) / h;
    return 0.2 * x;
  });
}

/** F0 in Hz of every complete frame of `pcm` fed in one chunk (NaN where unpitched). */
function track(pcm: Float32Array): number[] {
  const pitch = new PitchTracker();
  pitch.feed(pcm);
  const frames = Math.floor((pcm.length - FRAME_LENGTH) / FRAME_HOP) + 1;
  return Array.from({ length: frames }, (_, k) => Math.exp(pitch.logF0(k)));
}

const median = (values: number[]) => {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? Number.NaN;
};

describe("PitchTracker", () => {
  it.each([85, 110, 180, 220, 300])("finds the F0 of a %i Hz harmonic buzz within 3%", (f0) => {
    const f0s = track(buzz(f0, 1));
    const pitched = f0s.filter((v) => !Number.isNaN(v));
    expect(pitched.length).toBeGreaterThan(0.9 * f0s.length);
    expect(Math.abs(median(f0s) / f0 - 1)).toBeLessThan(0.03);
    // Nearly every frame agrees: no octave jumps.
    expect(pitched.filter((v) => Math.abs(v / f0 - 1) < 0.05).length).toBeGreaterThan(0.95 * pitched.length);
  });

  it("reports no pitch for silence or white noise", () => {
    expect(track(new Float32Array(SAMPLE_RATE)).every(Number.isNaN)).toBe(true);
    let state = 7;
    const noise = Float32Array.from({ length: SAMPLE_RATE }, () => {
      state = (state * 1664525 + 1013904223) >>> 0;
      return (state / 2 ** 32 - 0.5) * 0.5;
    });
    const f0s = track(noise);
    expect(f0s.filter((v) => !Number.isNaN(v)).length).toBeLessThan(0.05 * f0s.length);
  });

  it("gives the same pitch per frame whatever the chunking", () => {
    const pcm = buzz(140, 2);
    const whole = track(pcm);
    const pitch = new PitchTracker();
    const chunked: number[] = [];
    let state = 3;
    let frame = 0;
    for (let at = 0; at < pcm.length; ) {
      state = (state * 1664525 + 1013904223) >>> 0;
      const size = 1 + (state % 3000);
      pitch.feed(pcm.subarray(at, at + size));
      at += size;
      // Ask for every frame as soon as it is complete, as the diarizer does.
      for (; frame * FRAME_HOP + FRAME_LENGTH <= Math.min(at, pcm.length); frame++)
        chunked.push(Math.exp(pitch.logF0(frame)));
    }
    expect(chunked).toEqual(whole);
  });

  it("answers NaN for frames not fed yet", () => {
    const pitch = new PitchTracker();
    pitch.feed(buzz(200, 0.1));
    expect(pitch.logF0(5)).not.toBeNaN();
    expect(pitch.logF0(100)).toBeNaN();
  });
});
