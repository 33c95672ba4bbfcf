import { describe, expect, it } from "vitest";
import { pcm16Bytes, pcm16Samples, Resampler24kTo16k } from "../../durable-objects/live/pcm-resample.ts";

/** What the realtime dialect feeds the live engine: OpenAI's 24 kHz PCM16 as the engine's 16 kHz. */

const tone = (hz: number, rate: number, seconds: number, amplitude = 10_000) =>
  Int16Array.from({ length: Math.round(rate * seconds) }, (_, i) =>
    Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate)),
  );

const rms = (samples: Int16Array, from = 0) => {
  let sum = 0;
  for (let i = from; i < samples.length; i++) sum += (samples[i] ?? 0) ** 2;
  return Math.sqrt(sum / (samples.length - from));
};

/** Amplitude of `hz` in `samples` at `rate` (a single-bin DFT). */
const amplitudeAt = (samples: Int16Array, hz: number, rate: number) => {
  let re = 0;
  let im = 0;
  for (let i = 0; i < samples.length; i++) {
    re += (samples[i] ?? 0) * Math.cos((2 * Math.PI * hz * i) / rate);
    im += (samples[i] ?? 0) * Math.sin((2 * Math.PI * hz * i) / rate);
  }
  return (2 * Math.hypot(re, im)) / samples.length;
};

describe("24 kHz → 16 kHz", () => {
  it("gives two samples for every three, keeping a speech-band tone's pitch and level", () => {
    const out = new Resampler24kTo16k().push(tone(1_000, 24_000, 1));
    expect(out.length).toBeGreaterThanOrEqual(16_000 - 9); // the filter holds back its last few inputs
    expect(out.length).toBeLessThanOrEqual(16_000);
    const settled = out.subarray(100);
    expect(amplitudeAt(settled, 1_000, 16_000)).toBeGreaterThan(9_800);
    expect(amplitudeAt(settled, 1_000, 16_000)).toBeLessThan(10_200);
    expect(amplitudeAt(settled, 1_500, 16_000)).toBeLessThan(100); // the pitch did not move
  });

  it("removes what would fold back under the new Nyquist (a 10 kHz tone) by over 40 dB", () => {
    const out = new Resampler24kTo16k().push(tone(10_000, 24_000, 0.5));
    expect(rms(out, 100) / rms(tone(10_000, 24_000, 0.5))).toBeLessThan(0.01);
  });

  it("gives the same samples however the stream is cut into appends", () => {
    const input = tone(440, 24_000, 0.3);
    const whole = new Resampler24kTo16k().push(input);
    const chunked = new Resampler24kTo16k();
    const parts: Int16Array[] = [];
    for (let at = 0, size = 1; at < input.length; at += size, size = (size * 7 + 3) % 997 || 1) {
      parts.push(chunked.push(input.subarray(at, at + size)));
    }
    const joined = Int16Array.from(parts.flatMap((part) => [...part]));
    expect(joined).toEqual(whole);
  });

  it("reads and writes little-endian PCM16 from unaligned bytes", () => {
    const bytes = new Uint8Array(pcm16Bytes(Int16Array.from([1, -2, 32767, -32768])));
    const unaligned = new Uint8Array(bytes.length + 1);
    unaligned.set(bytes, 1);
    expect([...pcm16Samples(unaligned.subarray(1))]).toEqual([1, -2, 32767, -32768]);
  });
});
