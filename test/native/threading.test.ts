import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadModel, type Transcript, type WhisperModel } from "../../native/index.ts";
import { SENTENCE, speechPcm } from "./audio.ts";
import { microModelPath, sleep } from "./helpers.ts";

let speech: Float32Array;
const models: WhisperModel[] = [];

beforeAll(async () => {
  speech = await speechPcm(SENTENCE);
});
afterAll(() => Promise.all(models.map((m) => m.dispose())));

const view = (t: Transcript) => t.segments.map((s) => [s.start, s.end, s.text, s.tokens.map((k) => k.id)]);
const QUICK = { language: "en", maxTokens: 8, temperatureInc: 0 };

describe("decode threads", () => {
  it("decodes alike when a state's threadpool is remade for other threads between decodes", async () => {
    const m = await loadModel(await microModelPath(), { threads: 2, threadPolicy: "fixed" });
    models.push(m);
    const two = await m.transcribe(speech, QUICK);
    const one = await m.transcribe(speech, { ...QUICK, threads: 1 });
    const twoAgain = await m.transcribe(speech, QUICK);
    expect(m.stateStats().created).toBe(1); // one state, its pool remade twice
    expect(view(one)).toEqual(view(two));
    expect(view(twoAgain)).toEqual(view(two));
  });

  it("decodes alike under the adaptive policy, whatever threads it picks", async () => {
    const fixed = await loadModel(await microModelPath(), { threads: 2, threadPolicy: "fixed" });
    const adaptive = await loadModel(await microModelPath(), { threads: 2 });
    models.push(fixed, adaptive);
    expect(view(await adaptive.transcribe(speech, QUICK))).toEqual(
      view(await fixed.transcribe(speech, QUICK)),
    );
  });

  it("leaves no thread polling once a decode returns: an idle model uses no CPU", async () => {
    const m = await loadModel(await microModelPath(), { threads: 2, threadPolicy: "fixed" });
    models.push(m);
    for (let i = 0; i < 2; i++) {
      await m.transcribe(speech, QUICK);
      const before = process.cpuUsage();
      await sleep(500);
      const used = process.cpuUsage(before);
      // a ggml worker left polling for the next graph burns ~200 ms of a core here
      expect((used.user + used.system) / 1000).toBeLessThan(60);
    }
  });

  it("refuses an unknown thread policy", async () => {
    const path = await microModelPath();
    await expect(loadModel(path, { threadPolicy: "spin" as "fixed" })).rejects.toThrow(
      /threadPolicy must be 'adaptive' or 'fixed'/,
    );
  });

  it("refuses a platform pid that names no process id", async () => {
    const path = await microModelPath();
    for (const platformPid of [0, -3, 1.5, Number.NaN]) {
      await expect(loadModel(path, { platformPid })).rejects.toThrow(
        /platformPid must be a positive integer/,
      );
    }
  });
});
