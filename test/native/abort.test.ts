import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AbortError, loadModel, type WhisperModel } from "../../native/index.ts";
import { ensureSyntheticModel } from "../../native/model/synthetic.ts";
import { repeatTo, SENTENCE, speechPcm } from "./audio.ts";
import { microModelPath, rejectionOf, sleep } from "./helpers.ts";

let model: WhisperModel;
let long: Float32Array;

beforeAll(async () => {
  // one thread: a decode step then never waits at an OpenMP barrier for a descheduled peer
  model = await loadModel(await microModelPath(), { threads: 1 });
  // 10 windows of 220 tokens each without timestamps: several seconds of decoding
  long = repeatTo(await speechPcm(SENTENCE), 300);
});
afterAll(() => model.dispose());

const LONG_OPTS = { language: "en", timestamps: false, temperatureInc: 0 };

async function waitUntil(cond: () => boolean, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (!cond()) {
    if (performance.now() - started > timeoutMs) break;
    await sleep(1);
  }
  return performance.now() - started;
}

describe("abort", () => {
  it("rejects within 200 ms mid-decode and the native work stops as quickly", async () => {
    const ac = new AbortController();
    let progress = 0;
    const decode = model.transcribe(long, {
      ...LONG_OPTS,
      signal: ac.signal,
      onProgress: (p) => (progress = p),
    });
    const rejected = rejectionOf(decode);
    await waitUntil(() => progress >= 20, 60_000);
    await sleep(40); // land inside a window's decode loop, not on its boundary
    expect(progress).toBeGreaterThanOrEqual(20);
    expect(progress).toBeLessThan(100);

    const abortedAt = performance.now();
    ac.abort(new Error("user went away"));
    const err = await rejected;
    const rejectMs = performance.now() - abortedAt;
    // the native decode is tracked until whisper returns from its abort check
    const drainMs = (await waitUntil(() => model.pending === 0, 5000)) + rejectMs;

    expect(err).toBeInstanceOf(AbortError);
    expect(err.name).toBe("AbortError");
    expect(err.code).toBe("ABORT_ERR");
    expect((err.cause as Error).message).toBe("user went away");
    expect(rejectMs).toBeLessThan(200);
    expect(model.pending).toBe(0);
    expect(drainMs).toBeLessThan(200);
  });

  it("rejects at once for an already-aborted signal without starting native work", async () => {
    const err = await rejectionOf(model.transcribe(long, { ...LONG_OPTS, signal: AbortSignal.abort() }));
    expect(err).toBeInstanceOf(AbortError);
    expect(model.pending).toBe(0);
  });

  it("aborts a stream decode and frees the stream for the next one", async () => {
    const stream = await model.createStream({ language: "en", timestamps: false });
    const ac = new AbortController();
    let progress = 0;
    const rejected = rejectionOf(
      stream.decode(long, { signal: ac.signal, onProgress: (p) => (progress = p) }),
    );
    // past the log-mel of the whole input, which whisper computes without abort checks
    await waitUntil(() => progress > 0, 60_000);
    expect(stream.busy).toBe(true);
    ac.abort();
    expect(await rejected).toBeInstanceOf(AbortError);
    expect(await waitUntil(() => !stream.busy, 5000)).toBeLessThan(200);
    const next = await stream.decode(long.subarray(0, 16000 * 3), { maxTokens: 4 });
    expect(next.segments.length).toBeGreaterThan(0);
    await stream.dispose();
  });

  it("leaves the model usable and results unchanged after aborts", async () => {
    const pcm = long.subarray(0, 16000 * 6);
    const opts = { language: "en", temperatureInc: 0, maxTokens: 10 };
    const before = await model.transcribe(pcm, opts);
    const ac = new AbortController();
    const aborted = rejectionOf(model.transcribe(long, { ...LONG_OPTS, signal: ac.signal }));
    setTimeout(() => ac.abort(), 100);
    await aborted;
    const after = await model.transcribe(pcm, opts);
    expect(after.segments.map((s) => s.text)).toEqual(before.segments.map((s) => s.text));
  });

  it("stops inside an encoder pass, not at its end: a preempted live decode frees its cores at once", async () => {
    // tiny has real dimensions: one full-window encoder pass on one thread takes hundreds of ms
    const tiny = await loadModel(await ensureSyntheticModel("tiny"), { threads: 1 });
    const stream = await tiny.createStream({ language: "en", timestamps: false, maxTokens: 1 });
    try {
      const pcm = long.subarray(0, 16000 * 30);
      const full = await stream.decode(pcm, { audioCtx: 0 });
      const encodeMs = full.timings.encodeMs;
      const ac = new AbortController();
      const rejected = rejectionOf(stream.decode(pcm, { audioCtx: 0, signal: ac.signal }));
      await sleep(encodeMs / 3); // past the log-mel (~0.1 s), inside the encoder
      const abortedAt = performance.now();
      ac.abort();
      expect(await rejected).toBeInstanceOf(AbortError);
      await stream.idle();
      const drainMs = performance.now() - abortedAt;
      console.log(
        `encoder pass ${Math.round(encodeMs)} ms; aborted inside it, idle after ${Math.round(drainMs)} ms`,
      );
      // before, the pass ran to its end: drainMs ~ 2/3 of encodeMs
      expect(drainMs).toBeLessThan(encodeMs / 4);
      // and the state decodes as before
      const again = await stream.decode(pcm, { audioCtx: 0 });
      expect(again.segments.map((x) => x.text)).toEqual(full.segments.map((x) => x.text));
    } finally {
      await stream.dispose();
      await tiny.dispose();
    }
  });
});
