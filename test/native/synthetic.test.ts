import { createHash } from "node:crypto";
import { readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  NormalRandom,
  sinusoids,
  slaneyMelFilterbank,
  syntheticVocab,
  toFloat16Bits,
} from "../../native/model/ggml-parts.ts";
import {
  ensureSyntheticModel,
  isSyntheticModelFile,
  syntheticModelBytes,
  writeSyntheticModel,
} from "../../native/model/synthetic.ts";
import { tempDir } from "./helpers.ts";

const sha = async (file: string) =>
  createHash("sha256")
    .update(await readFile(file))
    .digest("hex");

describe("float16", () => {
  it.each([
    [0, 0x0000],
    [-0, 0x8000],
    [1, 0x3c00],
    [-2, 0xc000],
    [0.1, 0x2e66],
    [65504, 0x7bff],
    [65520, 0x7c00], // rounds up to infinity
    [2 ** -24, 0x0001], // smallest subnormal
    [2 ** -26, 0x0000],
    [1 + 2 ** -11, 0x3c00], // tie, rounds to even
    [1 + 3 * 2 ** -11, 0x3c02],
    [Number.POSITIVE_INFINITY, 0x7c00],
  ])("encodes %d as 0x%s", (value, bits) => {
    expect(toFloat16Bits(value)).toBe(bits);
  });

  it("encodes NaN as a NaN", () => {
    expect(toFloat16Bits(Number.NaN) & 0x7c00).toBe(0x7c00);
    expect(toFloat16Bits(Number.NaN) & 0x3ff).not.toBe(0);
  });
});

describe("mel filterbank", () => {
  const nBins = 201;
  const fb = slaneyMelFilterbank(16000, 400, 80);
  const row = (i: number) => Array.from(fb.subarray(i * nBins, (i + 1) * nBins));

  it("is 80 triangles rising to one peak each, in increasing frequency", () => {
    expect(fb.length).toBe(80 * nBins);
    let lastPeak = -1;
    for (let i = 0; i < 80; i++) {
      const r = row(i);
      expect(Math.min(...r)).toBeGreaterThanOrEqual(0);
      const peak = r.indexOf(Math.max(...r));
      expect(peak).toBeGreaterThanOrEqual(lastPeak);
      lastPeak = peak;
    }
    expect(lastPeak).toBeGreaterThan(180);
  });

  it("has Slaney area normalisation (each triangle integrates to ~1 over Hz)", () => {
    // 40 Hz bins sample the narrow linear-region and the wide high triangles well enough for the
    // sum to approximate the area; the 1-2 kHz ones in between straddle too few bins
    const area = (i: number) => row(i).reduce((a, b) => a + b, 0) * 40;
    for (let i = 0; i < 13; i++) expect(Math.abs(area(i) - 1)).toBeLessThan(0.01);
    for (let i = 45; i < 80; i++) expect(Math.abs(area(i) - 1)).toBeLessThan(0.02);
    expect(fb[1]).toBeCloseTo(0.02486259, 7); // regression value of the first filter
  });
});

describe("model parts", () => {
  it("seeded normals are deterministic and standard", () => {
    const a = new NormalRandom(7);
    const b = new NormalRandom(7);
    const xs = Array.from({ length: 20000 }, () => a.normal());
    expect(Array.from({ length: 20000 }, () => b.normal())).toEqual(xs);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    const variance = xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length;
    expect(Math.abs(mean)).toBeLessThan(0.03);
    expect(Math.abs(variance - 1)).toBeLessThan(0.05);
  });

  it("sinusoids start as [sin 0 | cos 0]", () => {
    const s = sinusoids(4, 8);
    expect(Array.from(s.subarray(0, 8))).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    expect(s[8]).toBeCloseTo(Math.sin(1), 6);
  });

  it("vocab has 50257 distinct tokens covering every byte, id 50256 empty", () => {
    const vocab = syntheticVocab();
    expect(vocab).toHaveLength(50257);
    for (let b = 0; b < 256; b++) expect(vocab[b]).toEqual(Buffer.from([b]));
    expect(vocab[50256]!.length).toBe(0);
    expect(new Set(vocab.map((v) => v.toString("latin1"))).size).toBe(50257);
  });
});

describe("synthetic model files", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir("synthetic");
  });

  it("are deterministic per seed and as large as announced", async () => {
    const [a, b, c] = ["a.bin", "b.bin", "c.bin"].map((f) => path.join(dir, f)) as [string, string, string];
    await writeSyntheticModel(a, "micro", 1);
    await writeSyntheticModel(b, "micro", 1);
    await writeSyntheticModel(c, "micro", 2);
    expect(await sha(a)).toBe(await sha(b));
    expect(await sha(c)).not.toBe(await sha(a));
    expect((await stat(a)).size).toBe(syntheticModelBytes("micro"));
  });

  it("are cached: a second ensure does not rewrite the file", async () => {
    const first = await ensureSyntheticModel("micro", dir);
    const before = await stat(first);
    const again = await ensureSyntheticModel("micro", dir);
    expect(again).toBe(first);
    expect((await stat(again)).mtimeMs).toBe(before.mtimeMs);
  });

  it("leave no temp files behind", async () => {
    const { readdir } = await import("node:fs/promises");
    expect((await readdir(dir)).filter((f) => f.includes(".tmp-"))).toEqual([]);
  });
});

describe("isSyntheticModelFile", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir("synthetic-mark");
  });

  it("recognises a synthetic model whatever its seed or name", async () => {
    const file = path.join(dir, "ggml-base.bin");
    await writeSyntheticModel(file, "micro", 7);
    expect(await isSyntheticModelFile(file)).toBe(true);
    expect(await isSyntheticModelFile(await ensureSyntheticModel("micro"))).toBe(true);
  });

  it("does not take a ggml file with another vocabulary, a short file or a non-model for one", async () => {
    const bytes = await readFile(await ensureSyntheticModel("micro"));
    // One word of the vocabulary changed: a real model's header differs in all of them.
    const vocabWord = bytes.indexOf(Buffer.from(" 42", "utf8"), 64_376);
    expect(vocabWord).toBeGreaterThan(64_376);
    const otherVocab = Buffer.from(bytes);
    otherVocab.write(" 43", vocabWord, "utf8");
    const cases = {
      "other-vocab.bin": otherVocab,
      "short.bin": bytes.subarray(0, 70_000),
      "text.bin": Buffer.from("not a model\n".repeat(100_000)),
    };
    for (const [name, content] of Object.entries(cases)) {
      await writeFile(path.join(dir, name), content);
      expect(await isSyntheticModelFile(path.join(dir, name)), name).toBe(false);
    }
  });
});
