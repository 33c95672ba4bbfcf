import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  isLanguage,
  loadModel,
  type Transcript,
  WhisperError,
  type WhisperModel,
} from "../../native/index.ts";
import { repeatTo, SENTENCE, speechPcm } from "./audio.ts";
import { microModelPath, rejectionOf } from "./helpers.ts";

let model: WhisperModel;
let speech: Float32Array;

beforeAll(async () => {
  model = await loadModel(await microModelPath(), { threads: 2 });
  speech = await speechPcm(SENTENCE);
});
afterAll(() => model.dispose());

const duration = (pcm: Float32Array) => pcm.length / 16000;

function expectWellFormed(t: Transcript, seconds: number): void {
  expect(t.segments.length).toBeGreaterThan(0);
  let prev = { start: 0, end: 0 };
  for (const s of t.segments) {
    expect(s.start).toBeGreaterThanOrEqual(prev.start);
    expect(s.end).toBeGreaterThanOrEqual(prev.end);
    expect(s.start).toBeLessThanOrEqual(s.end);
    expect(s.end).toBeLessThanOrEqual(seconds + 0.01);
    expect(s.noSpeechProb).toBeGreaterThanOrEqual(0);
    expect(s.noSpeechProb).toBeLessThanOrEqual(1);
    for (const tok of s.tokens) {
      expect(Number.isInteger(tok.id) && tok.id >= 0 && tok.id < 50257).toBe(true);
      expect(tok.p).toBeGreaterThanOrEqual(0);
      expect(tok.p).toBeLessThanOrEqual(1);
    }
    // whisper builds the segment text from exactly these tokens, byte for byte
    expect(Buffer.concat(s.tokens.map((tok) => tok.bytes)).toString("utf8")).toBe(s.text);
    if (!s.tokens.some((tok) => tok.text.includes("\uFFFD"))) {
      expect(s.tokens.map((tok) => tok.text).join("")).toBe(s.text);
    }
    if (s.tokens.length) expect(s.avgLogprob).toBeLessThanOrEqual(0);
    prev = s;
  }
}

describe("transcribe", () => {
  it("transcribes espeak-ng speech and detects a language", async () => {
    const t = await model.transcribe(speech, { temperatureInc: 0 });
    expect(isLanguage(t.language)).toBe(true);
    expect(t.languageProbability).toBeGreaterThan(0);
    expect(t.languageProbability).toBeLessThanOrEqual(1);
    expectWellFormed(t, duration(speech));
  });

  it("keeps timestamps monotonic over several windows", async () => {
    const long = repeatTo(speech, 75);
    const t = await model.transcribe(long, { language: "en", temperatureInc: 0 });
    expectWellFormed(t, duration(long));
    expect(t.segments.at(-1)!.end).toBeGreaterThan(30);
  });

  it("without timestamps gives one segment per 30 s window, bounded by maxTokens", async () => {
    const long = repeatTo(speech, 40);
    const t = await model.transcribe(long, {
      language: "en",
      timestamps: false,
      maxTokens: 6,
      temperatureInc: 0,
    });
    expect(t.segments.map((s) => [s.start, s.end])).toEqual([
      [0, 30],
      [30, 40],
    ]);
    for (const s of t.segments) expect(s.tokens.length).toBeLessThanOrEqual(7);
  });

  it("uses a given language instead of detecting one", async () => {
    const de = await model.transcribe(speech, { language: "de", temperatureInc: 0, maxTokens: 8 });
    expect(de.language).toBe("de");
    expect(de.languageProbability).toBeNull();
    const en = await model.transcribe(speech, { language: "english", temperatureInc: 0, maxTokens: 8 });
    expect(en.language).toBe("en");
  });

  it("detects among the languages it is given only", async () => {
    const free = await model.transcribe(speech, { temperatureInc: 0, maxTokens: 4 });
    // two languages other than the one detected freely: the detection must still pick one of them
    const among = ["fr", "de", "ja"].filter((code) => code !== free.language).slice(0, 2);
    const held = await model.transcribe(speech, { temperatureInc: 0, maxTokens: 4, detectLanguages: among });
    expect(among).toContain(held.language);
    expect(held.languageProbability).toBeGreaterThan(0);
    const err = await rejectionOf(model.transcribe(speech, { detectLanguages: ["fr", "xx"] }));
    expect(err.code).toBe("ERR_UNKNOWN_LANGUAGE");
  });

  it("reports progress up to 100", async () => {
    const seen: number[] = [];
    await model.transcribe(repeatTo(speech, 65), {
      language: "en",
      timestamps: false,
      maxTokens: 4,
      temperatureInc: 0,
      onProgress: (p) => seen.push(p),
    });
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen.at(-1)).toBe(100);
  });

  it("accepts a prompt, translation and token timestamps", async () => {
    const t = await model.transcribe(speech, {
      language: "de",
      translate: true,
      initialPrompt: "Voxedge, Cloudflare, whisper.cpp",
      tokenTimestamps: true,
      temperatureInc: 0,
      maxTokens: 12,
    });
    const tokens = t.segments.flatMap((s) => s.tokens);
    expect(tokens.length).toBeGreaterThan(0);
    for (const tok of tokens) {
      expect(tok.t0).toBeGreaterThanOrEqual(0);
      expect(tok.t1).toBeGreaterThanOrEqual(tok.t0!);
    }
  });

  it("supports beam search", async () => {
    const t = await model.transcribe(speech, {
      language: "en",
      beamSize: 3,
      temperatureInc: 0,
      maxTokens: 8,
    });
    expect(t.segments.length).toBeGreaterThan(0);
  });
});

describe("bad input", () => {
  it.each([
    ["a Float64Array", new Float64Array(16000)],
    ["an Int16Array", new Int16Array(16000)],
    ["a plain array", [0, 0.1, 0.2]],
    ["a Buffer", Buffer.alloc(64000)],
    ["undefined", undefined],
  ])("rejects %s with a TypeError", async (_name, input) => {
    const err = await rejectionOf(model.transcribe(input as unknown as Float32Array));
    expect(err).toBeInstanceOf(TypeError);
    expect(err.code).toBe("ERR_INVALID_AUDIO");
    expect(err.message).toMatch(/Float32Array/);
  });

  it("rejects empty audio", async () => {
    const err = await rejectionOf(model.transcribe(new Float32Array(0)));
    expect(err).toBeInstanceOf(WhisperError);
    expect(err.code).toBe("ERR_EMPTY_AUDIO");
  });

  it("rejects an unknown language instead of exiting", async () => {
    const err = await rejectionOf(model.transcribe(speech, { language: "xx" }));
    expect(err).toBeInstanceOf(WhisperError);
    expect(err.code).toBe("ERR_UNKNOWN_LANGUAGE");
    expect(err.message).toContain("'xx'");
    expect(isLanguage("xx")).toBe(false);
  });

  it.each([
    [{ threads: 0 }, /threads/],
    [{ temperature: "hot" }, /temperature/],
    [{ maxTokens: 1.5 }, /maxTokens/],
    [{ beamSize: 99 }, /beamSize/],
    [{ greedy: true, beamSize: 4 }, /greedy/],
  ])("rejects bad options %j with a TypeError", async (opts, message) => {
    const err = await rejectionOf(model.transcribe(speech, opts as object));
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toMatch(message);
  });

  it("still decodes after all of that", async () => {
    const t = await model.transcribe(speech, { language: "en", temperatureInc: 0, maxTokens: 8 });
    expect(t.segments.length).toBeGreaterThan(0);
  });
});

describe("concurrency", () => {
  it("runs 4 parallel decodes on one model, each matching a sequential decode", async () => {
    const opts = { language: "en", temperatureInc: 0, threads: 1 };
    const inputs = [speech, repeatTo(speech, 8), speech.subarray(8000), repeatTo(speech, 12)];
    const sequential = [];
    for (const pcm of inputs) sequential.push(await model.transcribe(pcm, opts));
    const parallel = await Promise.all(inputs.map((pcm) => model.transcribe(pcm, opts)));
    const view = (t: Transcript) =>
      t.segments.map((s) => [s.start, s.end, s.text, s.tokens.map((k) => k.id)]);
    expect(parallel.map(view)).toEqual(sequential.map(view));
  });

  it("keeps the event loop responsive during a long decode", async () => {
    let last = performance.now();
    let maxGap = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 5);
    // decodes for at least a second, however fast the machine: a loop blocked by one would show a gap
    // as long as that decode
    const pcm = repeatTo(speech, 90);
    const started = performance.now();
    let longest = 0;
    while (performance.now() - started < 1000) {
      const at = performance.now();
      await model.transcribe(pcm, { language: "en", timestamps: false, temperatureInc: 0 });
      longest = Math.max(longest, performance.now() - at);
    }
    clearInterval(timer);
    expect(longest).toBeGreaterThan(300);
    expect(maxGap).toBeLessThan(150);
  });
});
