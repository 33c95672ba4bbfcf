import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fitAudioCtx } from "../../inference-node/live/decode-policy.ts";
import { loadModel, type Transcript, WhisperError, type WhisperModel } from "../../native/index.ts";
import { repeatTo, SENTENCE, speechPcm } from "./audio.ts";
import { microModelPath, rejectionOf } from "./helpers.ts";

let model: WhisperModel;
let speech: Float32Array;

beforeAll(async () => {
  model = await loadModel(await microModelPath(), { threads: 2 });
  speech = await speechPcm(SENTENCE);
});
afterAll(() => model.dispose());

const texts = (t: Transcript) => t.segments.map((s) => s.text);

describe("StreamDecoder", () => {
  it("decodes a rolling buffer repeatedly on one state, matching one-shot decodes", async () => {
    const stream = await model.createStream({ language: "en", maxTokens: 16 });
    // a live caller re-decodes the growing tail of the audio every few hundred ms
    const windows = [1, 2, 3, 4, 5].map((s) => speech.subarray(0, Math.min(speech.length, s * 16000)));
    for (const pcm of windows) {
      const live = await stream.decode(pcm);
      const oneShot = await model.transcribe(pcm, {
        language: "en",
        maxTokens: 16,
        temperatureInc: 0,
        noContext: true,
        singleSegment: true,
      });
      expect(live.segments).toHaveLength(1);
      expect(texts(live)).toEqual(texts(oneShot));
    }
    await stream.dispose();
  });

  it("gives the same result when the same buffer is decoded twice (no state leaks between calls)", async () => {
    const stream = await model.createStream({ language: "en" });
    const a = await stream.decode(speech);
    await stream.decode(repeatTo(speech, 20));
    const b = await stream.decode(speech);
    expect(texts(b)).toEqual(texts(a));
    await stream.dispose();
  });

  it("refuses a second decode while one runs (ERR_STREAM_BUSY)", async () => {
    const stream = await model.createStream({ language: "en", timestamps: false });
    const first = stream.decode(repeatTo(speech, 30));
    expect(stream.busy).toBe(true);
    const err = await rejectionOf(stream.decode(speech));
    expect(err).toBeInstanceOf(WhisperError);
    expect(err.code).toBe("ERR_STREAM_BUSY");
    await first;
    expect(stream.busy).toBe(false);
    await stream.dispose();
  });

  it("dispose waits for the running decode, then rejects new ones", async () => {
    const stream = await model.createStream({ language: "en" });
    const running = stream.decode(speech);
    const disposed = stream.dispose();
    expect((await running).segments.length).toBeGreaterThan(0);
    await disposed;
    await expect(stream.decode(speech)).rejects.toMatchObject({ code: "ERR_STREAM_DISPOSED" });
    await stream.dispose();
  });

  it("decodes with the encoder context sized to the audio into what the full window gives, on the token budget", async () => {
    // the live engine's decode (inference-node/live/transcriber.ts): one segment without timestamp
    // tokens, as whisper.cpp's stream example, on a fixed token budget
    const stream = await model.createStream({ language: "en", maxTokens: 16, timestamps: false });
    for (const seconds of [1, 3, 6, 10, 15]) {
      const pcm = repeatTo(speech, seconds);
      const audioCtx = fitAudioCtx(pcm.length);
      expect(audioCtx).toBeGreaterThan(0);
      const fitted = await stream.decode(pcm, { audioCtx });
      const full = await stream.decode(pcm, { audioCtx: 0 });
      const tokens = (t: Transcript) => t.segments.reduce((n, s) => n + s.tokens.length, 0);
      expect(fitted.segments.length, `${seconds} s at audio_ctx ${audioCtx}`).toBe(full.segments.length);
      expect(tokens(fitted), `${seconds} s at audio_ctx ${audioCtx}`).toBe(tokens(full));
      expect(fitted.segments[0]?.end).toBeCloseTo(full.segments[0]?.end ?? -1, 1);
      expect(fitted.timings.encodes).toBe(1);
    }
    await stream.dispose();
  });

  it("detects the language over the encoder context the decode asked for, whatever the state decoded before", async () => {
    const pcm = repeatTo(speech, 3);
    const audioCtx = fitAudioCtx(pcm.length);
    // each on a model of its own: a fresh state, then whatever `before` leaves in it
    const detect = async (before: number | null, ctx: number) => {
      const own = await loadModel(await microModelPath(), { threads: 2 });
      try {
        const stream = await own.createStream({ maxTokens: 2, timestamps: false });
        if (before !== null) await stream.decode(pcm, { language: "en", audioCtx: before });
        return (await stream.decode(pcm, { language: "auto", audioCtx: ctx })).languageProbability;
      } finally {
        await own.dispose();
      }
    };
    // a fresh state used to detect over the full 30 s window, a used one over its last decode's window
    const fitted = await detect(null, audioCtx);
    expect(fitted).toEqual(expect.any(Number));
    expect(await detect(0, audioCtx)).toBe(fitted);
    const full = await detect(null, 0);
    expect(full).not.toBe(fitted);
    expect(await detect(audioCtx, 0)).toBe(full);
  });

  it("is disposed with its model", async () => {
    const own = await loadModel(await microModelPath());
    const stream = await own.createStream();
    await own.dispose();
    await expect(stream.decode(speech)).rejects.toMatchObject({ code: "ERR_STREAM_DISPOSED" });
  });
});
