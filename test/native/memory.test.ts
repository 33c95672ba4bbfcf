import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadModel, type WhisperModel } from "../../native/index.ts";
import { SENTENCE, speechPcm } from "./audio.ts";
import { microModelPath } from "./helpers.ts";

let model: WhisperModel;
let speech: Float32Array;

beforeAll(async () => {
  model = await loadModel(await microModelPath());
  speech = await speechPcm(SENTENCE);
});
afterAll(() => model.dispose());

// Two at a time with one thread each: the allocation pattern of a busy node, at half the wall time.
async function decodeRounds(rounds: number): Promise<void> {
  const opts = { language: "en", timestamps: false, maxTokens: 8, temperatureInc: 0, threads: 1 };
  for (let i = 0; i < rounds; i++) {
    const results = await Promise.all([model.transcribe(speech, opts), model.transcribe(speech, opts)]);
    for (const r of results) expect(r.segments.length).toBeGreaterThan(0);
  }
}

const rssMb = () => process.memoryUsage().rss / 1e6;

describe("memory", () => {
  it("does not grow over 200 decodes", async () => {
    // Warm up until malloc's arenas and thresholds settle (a freed state leaves its pages to malloc).
    await decodeRounds(15);
    const before = rssMb();
    await decodeRounds(100);
    const growth = rssMb() - before;
    // each whisper_state touches ~20 MB even for the micro model: a leaked state per decode
    // would add ~4 GB here
    expect(growth).toBeLessThan(40);
    expect(model.pending).toBe(0);
  });
});
