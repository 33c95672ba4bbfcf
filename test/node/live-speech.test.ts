import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { DecodeGate } from "../../inference-node/live/decode-gate.ts";
import { EspeakSpeech, espeakVoiceFor, LiveSpeech } from "../../inference-node/live/live-speech.ts";
import { DEFAULT_LIVE_OPTIONS } from "../../inference-node/live/options.ts";
import { serveSession } from "../../inference-node/live/session-link.ts";
import { logger } from "../../inference-node/logger.ts";
import { LatencyMeter } from "../../inference-node/translate/fan-out.ts";
import { EnergyVoiceActivity } from "../../inference-node/vad/voice-activity.ts";
import { loadModel, type WhisperModel } from "../../native/index.ts";
import { NodeToSession } from "../../protocol/live.ts";
import {
  SPEECH_MAX_AUDIO_BYTES,
  SynthesisFailedMessage,
  SynthesizedMessage,
} from "../../protocol/live-speech.ts";
import { microModelPath } from "../native/helpers.ts";
import { probe } from "./content-helpers.ts";

/**
 * Spoken translations on the node: real espeak-ng speaks a room's final in the asked language, the
 * WAV it sends decodes (ffprobe) to audio as long as the message says, and a node without the TTS, or
 * without a voice for the language, answers tts_unavailable.
 */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "live-speech-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const speech = new LiveSpeech(new EspeakSpeech());

/** Writes the answer's audio to a file and asks ffprobe how long it is. */
async function probed(answer: SynthesizedMessage, name: string) {
  const path = join(dir, `${name}.wav`);
  const bytes = Buffer.from(answer.audio, "base64");
  await writeFile(path, bytes);
  return { bytes: bytes.byteLength, ...probe(path) };
}

describe("LiveSpeech with espeak-ng", () => {
  it("speaks a sentence in each asked language as 16 kHz WAV of a plausible length", async () => {
    const cases = [
      { language: "vi", text: "Xin chào các bạn, hôm nay chúng ta học về thời tiết." },
      { language: "es", text: "Bienvenidos a la clase de hoy." },
      { language: "fr", text: "Bienvenue au cours." },
      { language: "zh", text: "欢迎来到今天的课。" },
    ];
    for (const { language, text } of cases) {
      const answer = SynthesizedMessage.parse(
        await speech.answer({ type: "synthesize", id: `1-${language}`, text, language }),
      );
      expect(answer).toMatchObject({ id: `1-${language}`, content_type: "audio/wav" });
      const file = await probed(answer, language);
      expect(file.streams).toEqual([
        expect.objectContaining({ codec_type: "audio", codec_name: "pcm_s16le" }),
      ]);
      expect(Math.abs(file.duration - answer.duration)).toBeLessThan(0.01);
      // a short sentence at 165 words a minute: about a second or a few, never nothing or minutes
      expect(answer.duration).toBeGreaterThan(0.7);
      expect(answer.duration).toBeLessThan(8);
      expect(file.bytes).toBeLessThanOrEqual(SPEECH_MAX_AUDIO_BYTES);
      // 16 kHz mono PCM16 after the 44-byte header (the duration is rounded to the millisecond)
      expect(Math.abs(file.bytes - 44 - answer.duration * 32_000)).toBeLessThanOrEqual(32);
    }
  }, 60_000);

  it("answers tts_unavailable without a voice for the language, without espeak-ng, or without any engine", async () => {
    const ask = { type: "synthesize" as const, id: "2-xx", text: "Hello.", language: "xx" };
    expect(SynthesisFailedMessage.parse(await speech.answer(ask))).toEqual({
      type: "synthesis_failed",
      id: "2-xx",
      code: "tts_unavailable",
      message: "espeak-ng has no voice for xx",
    });
    const missing = new LiveSpeech(new EspeakSpeech(join(dir, "no-espeak-here")));
    expect(await missing.answer({ ...ask, language: "en" })).toMatchObject({
      type: "synthesis_failed",
      code: "tts_unavailable",
    });
    expect(await new LiveSpeech(null).answer(ask)).toMatchObject({
      type: "synthesis_failed",
      code: "tts_unavailable",
      message: "this node has no text-to-speech engine",
    });
  });

  it("picks espeak-ng's voice for a code: its own, cmn for Chinese, else a regional one", () => {
    const voices = ["cmn", "en-gb", "en-us", "fr-fr", "vi", "pt", "pt-br"];
    expect(espeakVoiceFor("vi", voices)).toBe("vi");
    expect(espeakVoiceFor("zh", voices)).toBe("cmn");
    expect(espeakVoiceFor("fr", voices)).toBe("fr-fr");
    expect(espeakVoiceFor("pt", voices)).toBe("pt");
    expect(espeakVoiceFor("xx", voices)).toBeNull();
  });
});

describe("synthesize on a stream link", () => {
  let model: WhisperModel;
  let server: WebSocketServer;

  beforeAll(async () => {
    model = await loadModel(await microModelPath(), { threads: 1 });
    server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    await new Promise((resolve) => server.once("listening", resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await model.dispose();
  });

  it("answers each request on the link it came on, once each", async () => {
    const answers: NodeToSession[] = [];
    server.once("connection", (ws) => {
      ws.send(JSON.stringify({ type: "config", language: "en", targets: ["es", "vi"] }));
      ws.send(JSON.stringify({ type: "synthesize", id: "7-es", text: "Hola a todos.", language: "es" }));
      ws.send(
        JSON.stringify({ type: "synthesize", id: "7-vi", text: "Xin chào mọi người.", language: "vi" }),
      );
      ws.on("message", (data) => {
        answers.push(NodeToSession.parse(JSON.parse(data.toString("utf8"))));
        if (answers.length === 2) setTimeout(() => ws.close(1000, "done"), 200);
      });
    });
    const stopping = new AbortController();
    await serveSession(
      `ws://127.0.0.1:${(server.address() as AddressInfo).port}/internal/v1/live/streams/s1/secret`,
      "node-token-1234",
      {
        model,
        options: DEFAULT_LIVE_OPTIONS,
        vad: new EnergyVoiceActivity(),
        gate: new DecodeGate(2, 2),
        logger: logger.child({}, { level: "silent" }),
        mt: { translator: null, meter: new LatencyMeter() },
        speech,
      },
      stopping.signal,
    );
    expect(answers.map((a) => [a.type, "id" in a ? a.id : null]).sort()).toEqual([
      ["synthesized", "7-es"],
      ["synthesized", "7-vi"],
    ]);
  }, 30_000);
});
