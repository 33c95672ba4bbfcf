import { describe, expect, it } from "vitest";
import { MEL_BANDS } from "../../inference-node/diarize/features.ts";
import { NoiseMeter } from "../../inference-node/diarize/noise-estimate.ts";

/** Log mel energies of a frame whose every band holds `power`. */
const flat = (power: number) => new Float64Array(MEL_BANDS).fill(Math.log(power));

describe("NoiseMeter", () => {
  it("takes the noise from the quiet frames only and the speech level from the loud ones", () => {
    const meter = new NoiseMeter();
    for (let f = 0; f < 100; f++) meter.frame(flat(2), -60);
    expect(meter.estimate()).toBeNull(); // nothing loud yet: no level to set the noise against
    for (let f = 0; f < 100; f++) meter.frame(flat(500), -20);
    const estimate = meter.estimate();
    expect(estimate?.speechPower).toBeCloseTo(0.01, 6);
    expect(estimate?.melPower).toHaveLength(MEL_BANDS);
    // the loud frames' mel power (500) stays out of the noise
    for (const power of estimate?.melPower ?? []) expect(power).toBeCloseTo(2, 6);
  });
});
