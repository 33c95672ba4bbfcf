import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AbortError, loadModel, type Transcript, type WhisperModel } from "../../native/index.ts";
import { ensureSyntheticModel } from "../../native/model/synthetic.ts";
import { repeatTo, SENTENCE, speechPcm } from "./audio.ts";
import { microModelPath, rejectionOf } from "./helpers.ts";

let speech: Float32Array;
const models: WhisperModel[] = [];

async function model(concurrency?: number, size: "micro" | "tiny" = "micro"): Promise<WhisperModel> {
  const path = size === "micro" ? await microModelPath() : await ensureSyntheticModel(size);
  const m = await loadModel(path, { threads: 1, concurrency });
  models.push(m);
  return m;
}

beforeAll(async () => {
  speech = await speechPcm(SENTENCE);
});
afterAll(() => Promise.all(models.map((m) => m.dispose())));

const view = (t: Transcript) => t.segments.map((s) => [s.start, s.end, s.text, s.tokens.map((k) => k.id)]);
const QUICK = { language: "en", maxTokens: 8, temperatureInc: 0 };

describe("whisper state pool", () => {
  it("reuses one state for sequential decodes instead of allocating a new one", async () => {
    const m = await model();
    const first = await m.transcribe(speech, QUICK);
    const second = await m.transcribe(speech, QUICK);
    expect(first.timings.stateCreated).toBe(true);
    expect(second.timings.stateCreated).toBe(false);
    expect(m.stateStats()).toEqual({ created: 1, reused: 1, live: 1, idle: 1, peak: 1, capacity: 1 });
    expect(view(second)).toEqual(view(first));
  });

  it("decodes on a reused state exactly as on a fresh one (no context, RNG or language carried over)", async () => {
    // default options: temperature fallback samples with the state's RNG, and the text context
    // (noContext false) would carry the previous decode's words into the next one. tiny, because
    // the micro model's output hardly depends on its prompt.
    const opts = { language: "auto", maxTokens: 12 };
    const other = speech.map((s, i) => s * (i % 3 === 0 ? -1 : 1));
    const fresh = await (await model(1, "tiny")).transcribe(speech, opts);
    const reused = await model(1, "tiny");
    await reused.transcribe(other, { ...opts, initialPrompt: "context that must not leak" });
    const again = await reused.transcribe(speech, opts);
    expect(again.timings.stateCreated).toBe(false);
    expect(fresh.timings.fallbacks).toBeGreaterThan(0); // the RNG was really used
    expect(view(again)).toEqual(view(fresh));
    expect(again.language).toBe(fresh.language);
  });

  it("never holds more states than its concurrency, however many decodes are asked at once", async () => {
    const m = await model(2);
    const inputs = [1, 2, 3, 4, 5, 6].map((k) => repeatTo(speech, 2 + k));
    const sequential: Transcript[] = [];
    const reference = await model();
    for (const pcm of inputs) sequential.push(await reference.transcribe(pcm, QUICK));
    const started = inputs.map((pcm) => m.transcribe(pcm, QUICK));
    expect(m.pending).toBe(6);
    const parallel = await Promise.all(started);
    const stats = m.stateStats();
    expect(stats.capacity).toBe(2);
    expect(stats.peak).toBeLessThanOrEqual(2);
    expect(stats.live).toBeLessThanOrEqual(2);
    expect(stats.created + stats.reused).toBe(6);
    expect(stats.created).toBe(2); // two really ran side by side
    expect(parallel.map(view)).toEqual(sequential.map(view));
    expect(m.pending).toBe(0);
  });

  it("rejects a decode aborted while it waits for its turn, and runs the rest", async () => {
    const m = await model(1);
    const long = m.transcribe(repeatTo(speech, 60), { ...QUICK, timestamps: false, maxTokens: 0 });
    const ac = new AbortController();
    const waiting = m.transcribe(speech, { ...QUICK, signal: ac.signal });
    const after = m.transcribe(speech, QUICK);
    const abortedAt = performance.now();
    ac.abort();
    const err = await rejectionOf(waiting);
    expect(err).toBeInstanceOf(AbortError);
    expect(performance.now() - abortedAt).toBeLessThan(200);
    expect((await long).segments.length).toBeGreaterThan(0);
    expect((await after).segments.length).toBeGreaterThan(0);
    expect(m.pending).toBe(0);
    expect(m.stateStats().created).toBe(1);
  });

  it("lends an idle state to a new stream and takes it back when the stream is disposed", async () => {
    const m = await model(1);
    await m.transcribe(speech, QUICK);
    const stream = await m.createStream({ language: "en" });
    expect(m.stateStats()).toMatchObject({ created: 1, reused: 1, live: 0, idle: 0 });
    const live = await stream.decode(speech);
    expect(live.timings.stateCreated).toBe(false);
    // a file decode while the stream holds the state makes the pool's own
    await m.transcribe(speech, QUICK);
    expect(m.stateStats()).toMatchObject({ created: 2, live: 1 });
    const second = await m.createStream({ language: "en" });
    await Promise.all([stream.dispose(), second.dispose()]);
    // both come back, but the pool keeps no more than its capacity
    expect(m.stateStats()).toMatchObject({ live: 1, idle: 1, peak: 1 });
    const next = await m.transcribe(speech, QUICK);
    expect(next.timings.stateCreated).toBe(false);
  });

  it("reports whisper's own timings for each decode", async () => {
    const m = await model();
    const t = await m.transcribe(repeatTo(speech, 40), { ...QUICK, maxTokens: 0 });
    const w = t.timings;
    expect(w.encodes).toBe(2); // two 30 s windows
    expect(w.decodes).toBeGreaterThan(0);
    expect(w.encodeMs).toBeGreaterThan(0);
    expect(w.melMs).toBeGreaterThan(0);
    expect(w.totalMs).toBeGreaterThanOrEqual(w.encodeMs + w.decodeMs + w.melMs);
  });

  it("refuses a concurrency outside 1..256", async () => {
    for (const concurrency of [0, 1.5, 257]) {
      await expect(loadModel(await microModelPath(), { concurrency })).rejects.toThrow(TypeError);
    }
  });
});
