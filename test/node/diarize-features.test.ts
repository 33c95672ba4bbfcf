import { describe, expect, it } from "vitest";
import {
  dct,
  FRAME_HOP,
  FRAME_LENGTH,
  fft,
  MfccExtractor,
  melFilterbank,
  powerSpectrum,
  SAMPLE_RATE,
} from "../../inference-node/diarize/features.ts";

/** Deterministic pseudo-random numbers in [0, 1). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function naiveDft(x: Float64Array): { re: Float64Array; im: Float64Array } {
  const n = x.length;
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    for (let t = 0; t < n; t++) {
      re[k] = re[k]! + x[t]! * Math.cos((-2 * Math.PI * k * t) / n);
      im[k] = im[k]! + x[t]! * Math.sin((-2 * Math.PI * k * t) / n);
    }
  }
  return { re, im };
}

const tone = (hz: number, seconds: number, amplitude = 0.5) =>
  Float32Array.from(
    { length: Math.round(seconds * SAMPLE_RATE) },
    (_, i) => amplitude * Math.sin((2 * Math.PI * hz * i) / SAMPLE_RATE),
  );

describe("fft", () => {
  it("matches a naive DFT on random input", () => {
    const next = random(1);
    const x = Float64Array.from({ length: 64 }, () => next() - 0.5);
    const re = Float64Array.from(x);
    const im = new Float64Array(64);
    fft(re, im);
    const expected = naiveDft(x);
    for (let k = 0; k < 64; k++) {
      expect(re[k]).toBeCloseTo(expected.re[k]!, 9);
      expect(im[k]).toBeCloseTo(expected.im[k]!, 9);
    }
  });

  it("puts a pure tone's energy in its bin (and the mirror bin)", () => {
    const n = 256;
    const re = Float64Array.from({ length: n }, (_, t) => Math.cos((2 * Math.PI * 10 * t) / n));
    const im = new Float64Array(n);
    fft(re, im);
    const magnitude = Array.from(re, (r, k) => Math.hypot(r, im[k]!));
    expect(magnitude[10]).toBeCloseTo(n / 2, 6);
    expect(magnitude[n - 10]).toBeCloseTo(n / 2, 6);
    const elsewhere = magnitude.filter((_, k) => k !== 10 && k !== n - 10);
    expect(Math.max(...elsewhere)).toBeLessThan(1e-9);
  });

  it("rejects sizes that are not a power of two", () => {
    expect(() => fft(new Float64Array(12), new Float64Array(12))).toThrow(/power of two/);
    expect(() => fft(new Float64Array(8), new Float64Array(4))).toThrow(/matching/);
  });
});

describe("powerSpectrum", () => {
  it("equals |DFT|^2 of a real signal for every bin up to n/2", () => {
    const next = random(7);
    const x = Float64Array.from({ length: 128 }, () => next() - 0.5);
    const power = new Float64Array(65);
    powerSpectrum(x, power, { re: new Float64Array(64), im: new Float64Array(64) });
    const { re, im } = naiveDft(x);
    for (let k = 0; k <= 64; k++) expect(power[k]).toBeCloseTo(re[k]! ** 2 + im[k]! ** 2, 8);
  });
});

describe("melFilterbank", () => {
  const bank = melFilterbank(40, 512, SAMPLE_RATE, 20, 7600);

  it("has triangular filters with rising centres and peaks of at most 1", () => {
    expect(bank).toHaveLength(40);
    const centres = bank.map((f) => f.first + f.weights.indexOf(Math.max(...f.weights)));
    for (let m = 1; m < 40; m++) expect(centres[m]!).toBeGreaterThanOrEqual(centres[m - 1]!);
    for (const f of bank) {
      expect(Math.max(...f.weights)).toBeLessThanOrEqual(1);
      expect(Math.max(...f.weights)).toBeGreaterThan(0.3);
      expect(f.first + f.weights.length - 1).toBeLessThanOrEqual(256);
    }
    // Mel spacing: low filters are narrower than high ones.
    expect(bank[0]!.weights.length).toBeLessThan(bank[39]!.weights.length);
  });

  it("routes a 1 kHz tone to the filter centred nearest 1 kHz", () => {
    const x = Float64Array.from({ length: 512 }, (_, t) => Math.sin((2 * Math.PI * 1000 * t) / SAMPLE_RATE));
    const power = new Float64Array(257);
    powerSpectrum(x, power, { re: new Float64Array(256), im: new Float64Array(256) });
    const energies = bank.map((f) => f.weights.reduce((sum, w, j) => sum + w * power[f.first + j]!, 0));
    const loudest = energies.indexOf(Math.max(...energies));
    const centreHz = (f: (typeof bank)[number]) =>
      ((f.first + f.weights.indexOf(Math.max(...f.weights))) * SAMPLE_RATE) / 512;
    const nearest = bank
      .map((f, m) => [Math.abs(centreHz(f) - 1000), m] as const)
      .sort((a, b) => a[0] - b[0])[0]![1];
    expect(Math.abs(loudest - nearest)).toBeLessThanOrEqual(1);
  });
});

describe("dct", () => {
  it("maps a constant to a single DC coefficient", () => {
    const out = new Float64Array(4);
    dct(new Float64Array([1, 1, 1, 1]), out);
    expect(out[0]).toBeCloseTo(2, 12);
    for (let k = 1; k < 4; k++) expect(out[k]).toBeCloseTo(0, 12);
  });

  it("is orthonormal: energy is preserved and a cosine basis vector maps to one coefficient", () => {
    const next = random(3);
    const x = Float64Array.from({ length: 16 }, () => next());
    const out = new Float64Array(16);
    dct(x, out);
    const energy = (v: Float64Array) => v.reduce((s, a) => s + a * a, 0);
    expect(energy(out)).toBeCloseTo(energy(x), 10);
    const basis = Float64Array.from({ length: 16 }, (_, i) => Math.cos((Math.PI * 3 * (i + 0.5)) / 16));
    dct(basis, out);
    expect(out[3]).toBeCloseTo(Math.sqrt(8), 10);
    expect(Math.abs(out[2]!) + Math.abs(out[4]!)).toBeLessThan(1e-10);
  });
});

describe("MfccExtractor", () => {
  const run = (pcm: Float32Array, chunks: number[]) => {
    const mfcc = new MfccExtractor(19);
    const frames: number[][] = [];
    let at = 0;
    for (const size of [...chunks, pcm.length]) {
      mfcc.push(pcm.subarray(at, Math.min(pcm.length, at + size)), (ceps, db) => frames.push([...ceps, db]));
      at = Math.min(pcm.length, at + size);
    }
    return frames;
  };

  it("emits one frame per 10 ms hop with the frame energy in dBFS", () => {
    const pcm = tone(440, 1, 1);
    const frames = run(pcm, []);
    expect(frames).toHaveLength(Math.floor((pcm.length - FRAME_LENGTH) / FRAME_HOP) + 1);
    expect(frames[0]).toHaveLength(20);
    // A full-scale sine has a mean power of 1/2, i.e. -3 dBFS.
    for (const frame of frames) expect(frame[19]).toBeCloseTo(-3, 0);
  });

  it("gives bit-identical frames whatever the chunking", () => {
    const next = random(11);
    const pcm = Float32Array.from({ length: 8000 }, () => next() - 0.5);
    const whole = run(pcm, []);
    expect(run(pcm, [1, 399, 1, 160, 7, 1000, 3])).toEqual(whole);
    expect(
      run(
        pcm,
        Array.from({ length: 100 }, () => 1 + Math.floor(next() * 300)),
      ),
    ).toEqual(whole);
  });

  it("tells a low tone from a high one", () => {
    const mean = (frames: number[][]) =>
      frames[0]!.slice(0, 19).map((_, d) => frames.reduce((s, f) => s + f[d]!, 0));
    const low = mean(run(tone(300, 0.5), []));
    const high = mean(run(tone(3000, 0.5), []));
    const distance = Math.hypot(...low.map((x, d) => x - high[d]!));
    expect(distance).toBeGreaterThan(10);
  });
});
