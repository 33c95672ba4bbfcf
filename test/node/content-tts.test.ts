/**
 * Narration engines against real audio: espeak-ng (the real binary) and an OpenAI-compatible speech
 * server (a real HTTP server on 127.0.0.1 answering with real WAV audio).
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContentError } from "../../inference-node/content/errors.ts";
import { PHRASE_GAP_SEC, SENTENCE_GAP_SEC } from "../../inference-node/content/tts/assemble.ts";
import { EspeakSynthesizer } from "../../inference-node/content/tts/espeak.ts";
import { fitSpeech } from "../../inference-node/content/tts/fit.ts";
import { OpenAiSpeechSynthesizer } from "../../inference-node/content/tts/openai-speech.ts";
import type { Speech } from "../../inference-node/content/tts/synthesizer.ts";
import { encodeWav, type Pcm, parseWav, readWav } from "../../inference-node/content/tts/wav.ts";
import { VOICES, type Voice } from "../../protocol/content.ts";
import { type FakeServer, sendJson, startServer } from "./translate-fake-servers.ts";

const voice = (id: string) => VOICES.find((v) => v.voice_id === id) as Voice;
const signal = new AbortController().signal;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "content-tts-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Root-mean-square level of [from, to) seconds. */
function rms(pcm: Pcm, from: number, to: number): number {
  const a = Math.max(0, Math.floor(from * pcm.sampleRate));
  const b = Math.min(pcm.samples.length, Math.floor(to * pcm.sampleRate));
  let sum = 0;
  for (let i = a; i < b; i += 1) sum += (pcm.samples[i] ?? 0) ** 2;
  return b > a ? Math.sqrt(sum / (b - a)) : 0;
}

/** Word times checked against the audio they describe. */
async function expectTimingsMatchAudio(speech: Speech, text: string): Promise<void> {
  const pcm = await readWav(speech.wavPath);
  expect(speech.durationSec).toBeCloseTo(pcm.samples.length / pcm.sampleRate, 3);
  expect(speech.words.map((w) => w.text).join(" ")).toBe(text.split(/\s+/).join(" "));
  // The first word starts the audio and the last ends it.
  expect(speech.words[0]?.start).toBe(0);
  expect(Math.abs((speech.words.at(-1)?.end ?? 0) - speech.durationSec)).toBeLessThan(0.02);
  const loud = rms(pcm, 0, speech.durationSec);
  speech.words.forEach((word, i) => {
    expect(word.end).toBeGreaterThan(word.start);
    // Every word's span carries speech.
    expect(rms(pcm, word.start, word.end)).toBeGreaterThan(loud * 0.15);
    const next = speech.words[i + 1];
    if (!next) return;
    expect(next.start).toBeGreaterThanOrEqual(word.end - 1e-9);
    const gap = next.start - word.end;
    if (gap > 0.05) {
      // A pause between words is real silence in the audio, and the next word's sound begins on time.
      expect(rms(pcm, word.end + 0.01, next.start - 0.01)).toBeLessThan(loud * 0.02);
      expect(rms(pcm, next.start, next.start + 0.06)).toBeGreaterThan(loud * 0.05);
    }
  });
}

describe("espeak-ng synthesizer", () => {
  const tts = new EspeakSynthesizer();

  it("speaks English with measured word times that match the audio", async () => {
    const text =
      "The Mekong, a long river, flows through six countries. Around sixty million people depend on it.";
    const speech = await tts.synthesize(text, voice("en-female"), signal, join(dir, "en.wav"));
    expect(speech.timing).toBe("measured");
    expect(speech.durationSec).toBeGreaterThan(3);
    await expectTimingsMatchAudio(speech, text);
    // The sentence break and the phrase breaks are the pauses the assembler put there.
    const sentenceEnd = speech.words.findIndex((w) => w.text === "countries.");
    const after = speech.words[sentenceEnd + 1];
    expect((after?.start ?? 0) - (speech.words[sentenceEnd]?.end ?? 0)).toBeCloseTo(SENTENCE_GAP_SEC, 2);
    const comma = speech.words.findIndex((w) => w.text === "Mekong,");
    expect((speech.words[comma + 1]?.start ?? 0) - (speech.words[comma]?.end ?? 0)).toBeCloseTo(
      PHRASE_GAP_SEC,
      2,
    );
  });

  it("speaks Vietnamese with every word timed", async () => {
    const text = "Sông Mê Kông chảy qua sáu quốc gia. Đồng bằng sông Cửu Long là vựa lúa lớn nhất Việt Nam.";
    const speech = await tts.synthesize(text, voice("vi-male"), signal, join(dir, "vi.wav"));
    expect(speech.timing).toBe("measured");
    await expectTimingsMatchAudio(speech, text);
  });

  it("gives longer words longer spans inside a phrase (timings come from the audio, not a constant)", async () => {
    const speech = await tts.synthesize(
      "A extraordinarily long word.",
      voice("en-male"),
      signal,
      join(dir, "long.wav"),
    );
    const [a, long] = speech.words;
    expect((long?.end ?? 0) - (long?.start ?? 0)).toBeGreaterThan(3 * ((a?.end ?? 0) - (a?.start ?? 0)));
  });

  it("cuts a narration at the last sentence that fits", async () => {
    const text = "First sentence is here. Second sentence follows it. Third sentence ends the text.";
    const speech = await tts.synthesize(text, voice("en-male"), signal, join(dir, "fit.wav"));
    const limit = (speech.words.find((w) => w.text === "follows")?.end ?? 0) + 0.05;
    const fitted = await fitSpeech(speech, limit);
    expect(fitted.words.map((w) => w.text).join(" ")).toBe("First sentence is here.");
    expect(fitted.durationSec).toBeLessThanOrEqual(limit);
    const pcm = await readWav(fitted.wavPath);
    expect(pcm.samples.length / pcm.sampleRate).toBeCloseTo(fitted.durationSec, 3);
  });

  it("fails tts_unavailable when espeak-ng is not installed", async () => {
    const missing = new EspeakSynthesizer({ binary: join(dir, "no-espeak-ng") });
    const error = await missing
      .synthesize("Hello there.", voice("en-male"), signal, join(dir, "x.wav"))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContentError);
    expect(error).toMatchObject({ code: "tts_unavailable" });
    expect(missing.available()).toBe(false);
  });

  it("fails tts_unavailable when espeak-ng is not on PATH", async () => {
    const path = process.env.PATH;
    process.env.PATH = dir;
    try {
      await expect(
        new EspeakSynthesizer().synthesize("Hello.", voice("en-male"), signal, join(dir, "y.wav")),
      ).rejects.toMatchObject({
        code: "tts_unavailable",
      });
    } finally {
      process.env.PATH = path;
    }
  });

  it("stops at once when aborted", async () => {
    const controller = new AbortController();
    const pending = tts.synthesize(
      "One. Two. Three. Four. Five. Six.".repeat(20),
      voice("en-male"),
      controller.signal,
      join(dir, "ab.wav"),
    );
    controller.abort(new Error("cancelled by test"));
    await expect(pending).rejects.toThrow("cancelled by test");
  });
});

describe("OpenAI-compatible speech synthesizer", () => {
  let server: FakeServer;
  /** Real speech for the server to answer with: espeak-ng's WAV of the requested input. */
  const spoken = (input: string) => execFileSync("espeak-ng", ["-v", "en-us", "--stdout", input]);

  beforeAll(async () => {
    server = await startServer((req, res) => {
      if (req.path !== "/v1/audio/speech" || req.headers.authorization !== "Bearer sk-test") {
        return sendJson(res, 401, { error: { message: "bad key" } });
      }
      const body = req.body as { input: string; format?: string; response_format: string };
      if (body.input.includes("explode")) return sendJson(res, 500, { error: { message: "model crashed" } });
      const wav = spoken(body.input);
      if (body.input.includes("mp3")) {
        const mp3 = execFileSync("ffmpeg", ["-v", "error", "-i", "pipe:0", "-f", "mp3", "pipe:1"], {
          input: wav,
        });
        res.writeHead(200, { "content-type": "audio/mpeg" });
        res.end(mp3);
        return;
      }
      res.writeHead(200, { "content-type": "audio/wav" });
      res.end(wav);
    });
  });
  afterAll(async () => {
    await server.close();
  });

  const remote = () =>
    new OpenAiSpeechSynthesizer({ url: server.url, apiKey: "sk-test", model: "tts-1", ffmpeg: "ffmpeg" });

  it("requests each sentence with the voice's remote name and times words within sentences", async () => {
    const before = server.requests.length;
    const text = "Rivers carry water to the sea. Deltas are very fertile.";
    const speech = await remote().synthesize(text, voice("en-female"), signal, join(dir, "remote.wav"));
    const requests = server.requests
      .slice(before)
      .map((r) => r.body as { model: string; voice: string; input: string; response_format: string });
    expect(requests.map((r) => r.input).sort()).toEqual([
      "Deltas are very fertile.",
      "Rivers carry water to the sea.",
    ]);
    expect(
      requests.every((r) => r.model === "tts-1" && r.voice === "nova" && r.response_format === "wav"),
    ).toBe(true);
    expect(speech.timing).toBe("proportional");
    await expectTimingsMatchAudio(speech, text);
  });

  it("decodes servers that answer in MP3", async () => {
    const speech = await remote().synthesize(
      "Please answer in mp3 today.",
      voice("en-male"),
      signal,
      join(dir, "mp3.wav"),
    );
    expect(speech.durationSec).toBeGreaterThan(0.8);
    expect(speech.words).toHaveLength(5);
  });

  it("fails tts_failed on a server error and tts_unavailable when unreachable", async () => {
    await expect(
      remote().synthesize("This will explode.", voice("en-male"), signal, join(dir, "e.wav")),
    ).rejects.toMatchObject({
      code: "tts_failed",
    });
    const closed = new OpenAiSpeechSynthesizer({
      url: "http://127.0.0.1:9",
      model: "tts-1",
      ffmpeg: "ffmpeg",
    });
    await expect(
      closed.synthesize("Hello.", voice("en-male"), signal, join(dir, "u.wav")),
    ).rejects.toMatchObject({
      code: "tts_unavailable",
    });
  });
});

it("writes WAV files the parser reads back sample for sample", () => {
  const pcm = { sampleRate: 16_000, samples: Int16Array.from([0, 1, -1, 32767, -32768]) };
  const back = parseWav(encodeWav(pcm));
  expect(back.sampleRate).toBe(16_000);
  expect([...back.samples]).toEqual([...pcm.samples]);
});
