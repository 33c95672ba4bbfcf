import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadModel, WhisperError, whisperSystemInfo } from "../../native/index.ts";
import { ensureSyntheticModel } from "../../native/model/synthetic.ts";
import { speechPcm } from "./audio.ts";
import { microModelPath, rejectionOf, tempDir } from "./helpers.ts";

describe("loadModel", () => {
  it("loads the micro model and reports what whisper.cpp read", async () => {
    const model = await loadModel(await microModelPath(), { threads: 2 });
    expect(model.info).toMatchObject({
      type: "unknown",
      multilingual: true,
      nVocab: 51865,
      nAudioCtx: 1500,
      nAudioState: 64,
      nAudioHead: 1,
      nAudioLayer: 1,
      nTextCtx: 448,
      nTextState: 64,
      nTextLayer: 1,
      nMels: 80,
      ftype: 1,
    });
    expect(model.info.whisperVersion).toBe(whisperSystemInfo().version);
    expect(model.info.whisperVersion).toMatch(/^\d+\.\d+\.\d+$/);
    await model.dispose();
  });

  it("recognises real dimensions (tiny)", async () => {
    const model = await loadModel(await ensureSyntheticModel("tiny"));
    expect(model.info).toMatchObject({
      type: "tiny",
      nAudioState: 384,
      nAudioHead: 6,
      nAudioLayer: 4,
      nTextLayer: 4,
    });
    await model.dispose();
  });
});

describe("bad model files", () => {
  let dir: string;
  let good: Buffer;
  beforeAll(async () => {
    dir = await tempDir("models");
    good = await readFile(await microModelPath());
  });

  async function loadBytes(name: string, bytes: Buffer) {
    const file = path.join(dir, name);
    await writeFile(file, bytes);
    return rejectionOf(loadModel(file));
  }

  it("rejects a missing file with ERR_MODEL_NOT_FOUND", async () => {
    const err = await rejectionOf(loadModel(path.join(dir, "nope.bin")));
    expect(err).toBeInstanceOf(WhisperError);
    expect(err.code).toBe("ERR_MODEL_NOT_FOUND");
    expect(err.message).toContain("nope.bin");
  });

  it("rejects random bytes", async () => {
    const err = await loadBytes("random.bin", randomBytes(64 * 1024));
    expect(err.code).toBe("ERR_MODEL_INVALID");
    expect(err.message).toMatch(/bad magic/);
  });

  it.each([
    ["inside the header", 30],
    ["inside the vocabulary", 200_000],
    ["inside a middle tensor", 4_000_000],
    ["inside the last tensor", -100],
  ])("rejects a model truncated %s", async (_where, at) => {
    const cut = at > 0 ? at : good.length + at;
    const err = await loadBytes(`cut-${cut}.bin`, good.subarray(0, cut));
    expect(err.code).toBe("ERR_MODEL_INVALID");
  });

  it("rejects a corrupt ftype instead of hitting ggml's abort()", async () => {
    const bad = Buffer.from(good);
    bad.writeInt32LE(5, 4 + 10 * 4); // hparams[10] = ftype; 5 is a removed quantization
    const err = await loadBytes("ftype.bin", bad);
    expect(err.code).toBe("ERR_MODEL_INVALID");
    expect(err.message).toMatch(/ftype/);
  });

  it("rejects absurd dimensions", async () => {
    const bad = Buffer.from(good);
    bad.writeInt32LE(0x7fffffff, 4); // n_vocab
    expect((await loadBytes("vocab.bin", bad)).code).toBe("ERR_MODEL_INVALID");
  });

  it("rejects a non-string path with a TypeError", async () => {
    await expect(loadModel(42 as unknown as string)).rejects.toBeInstanceOf(TypeError);
  });

  it("still loads a good model afterwards", async () => {
    const model = await loadModel(await microModelPath());
    expect(model.info.nAudioState).toBe(64);
    await model.dispose();
  });
});

describe("dispose", () => {
  it("is idempotent and makes later use reject clearly", async () => {
    const model = await loadModel(await microModelPath());
    const first = model.dispose();
    expect(model.dispose()).toBe(first);
    await first;
    expect(model.disposed).toBe(true);
    const err = await rejectionOf(model.transcribe(new Float32Array(16000)));
    expect(err).toBeInstanceOf(WhisperError);
    expect(err.code).toBe("ERR_MODEL_DISPOSED");
    await expect(model.createStream()).rejects.toMatchObject({ code: "ERR_MODEL_DISPOSED" });
  });

  it("lets in-flight decodes finish and frees the weights after them", async () => {
    const model = await loadModel(await microModelPath(), { threads: 1 });
    const pcm = await speechPcm("Dispose while decoding.");
    const running = [1, 2].map(() => model.transcribe(pcm, { language: "en", temperatureInc: 0 }));
    expect(model.pending).toBe(2);
    let disposed = false;
    const done = model.dispose().then(() => {
      disposed = true;
    });
    const results = await Promise.all(running);
    for (const r of results) expect(r.segments.length).toBeGreaterThan(0);
    await done;
    expect(disposed).toBe(true);
    expect(model.pending).toBe(0);
  });
});
