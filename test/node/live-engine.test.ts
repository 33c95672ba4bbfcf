import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIVE_OPTIONS } from "../../inference-node/live/options.ts";
import { float32ToPcm16, pcm16ToFloat32 } from "../../inference-node/live/pcm.ts";
import { type DecodeStat, LiveTranscriber } from "../../inference-node/live/transcriber.ts";
import { SileroVad } from "../../inference-node/vad/silero.ts";
import type { VoiceActivity } from "../../inference-node/vad/voice-activity.ts";
import { loadModel, type WhisperModel } from "../../native/index.ts";
import type { ServerMessage } from "../../protocol/live.ts";
import { pinkNoise, seededRandom } from "../helpers/dialogue.ts";
import { musicBed } from "../helpers/music-bed.ts";
import { SENTENCE, speechPcm } from "../native/audio.ts";
import { microModelPath } from "../native/helpers.ts";
import { concat, feed, quiet, SR, sleep } from "./live-helpers.ts";

/** The engine on the real addon (synthetic micro model: the words are noise, the timing is real). */

let model: WhisperModel;
let speech: Float32Array;
let silero: SileroVad;

beforeAll(async () => {
  model = await loadModel(await microModelPath(), { threads: 2 });
  speech = await speechPcm(SENTENCE);
  silero = await SileroVad.load();
});

/**
 * Streams `pcm` through an engine on the micro model with `vad`. With `end` the client then says
 * `end` (flush); without it the engine is left to endpoint by itself, and we wait up to 30 s for the
 * finals it sends on its own.
 */
async function stream(pcm: Float32Array, vad: VoiceActivity, end: boolean) {
  const decoders = { interim: await model.createStream(), final: await model.createStream() };
  const messages: ServerMessage[] = [];
  const t = new LiveTranscriber(
    decoders,
    { send: (m) => messages.push(m) },
    { ...DEFAULT_LIVE_OPTIONS, maxTokens: 8 },
    "en",
    vad,
  );
  await feed((c) => t.push(c), pcm, 100, 25);
  if (end) await t.flush();
  else
    for (let waited = 0; waited < 30_000 && !messages.some((m) => m.type === "final"); waited += 50)
      await sleep(50);
  t.close();
  await Promise.all([decoders.interim.dispose(), decoders.final.dispose()]);
  return { messages, finals: messages.filter((m) => m.type === "final") };
}

/** Pink noise bursts at `rmsDb` dBFS, one second on and one off (a fan, traffic, a door), deterministic. */
function noiseBursts(seconds: number, rmsDb: number): Float32Array {
  const pcm = pinkNoise(seconds * SR, seededRandom(5));
  const rms = Math.sqrt(pcm.reduce((sum, x) => sum + x * x, 0) / pcm.length);
  const gain = 10 ** (rmsDb / 20) / rms;
  return pcm.map((x, i) => (Math.floor(i / SR) % 2 === 0 ? x * gain : x * gain * 0.05));
}
afterAll(() => model.dispose());

describe("live engine on whisper.cpp", () => {
  it("turns streamed speech into settled interims and one final per utterance", async () => {
    const decoders = { interim: await model.createStream(), final: await model.createStream() };
    const messages: ServerMessage[] = [];
    const stats: DecodeStat[] = [];
    const t = new LiveTranscriber(
      decoders,
      { send: (m) => messages.push(m), decoded: (s) => stats.push(s) },
      { ...DEFAULT_LIVE_OPTIONS, maxTokens: 16 },
      "en",
    );
    // PCM16 round trip, as the wire carries it; 4x real time
    const wire = pcm16ToFloat32(float32ToPcm16(concat(quiet(500), speech, quiet(1000))));
    await feed((c) => t.push(c), wire, 100, 25);
    await t.flush();
    await Promise.all([decoders.interim.dispose(), decoders.final.dispose()]);

    const finals = messages.filter((m) => m.type === "final");
    expect(finals.length).toBeGreaterThanOrEqual(1);
    for (const f of finals) {
      expect(f.language).toBe("en");
      expect(f.start).toBeGreaterThanOrEqual(0.3);
      expect(f.end).toBeLessThanOrEqual(0.5 + speech.length / SR + 0.1);
    }
    expect(messages.some((m) => m.type === "interim")).toBe(true);
    expect(messages.filter((m) => m.type === "error")).toEqual([]);
    // a final comes from one decode of its audio: a tentative one at the pause, or its own
    expect(stats.filter((s) => s.kind === "final").length).toBeLessThanOrEqual(finals.length);
    expect(stats.filter((s) => s.kind !== "interim").length).toBeGreaterThanOrEqual(finals.length);
    // every decode encodes only the audio heard (auto), and the addon reports the encoder's time
    for (const stat of stats) {
      expect(stat.audioCtx).toBeGreaterThan(0);
      expect(stat.audioCtx).toBeLessThan(1500);
      expect(stat.encodeMs).toBeGreaterThan(0);
    }
  });

  it("cuts no final out of noise alone with the Silero VAD", async () => {
    const { finals, messages } = await stream(
      concat(quiet(500), noiseBursts(6, -25), quiet(1000)),
      silero,
      true,
    );
    expect(finals).toEqual([]);
    expect(messages.filter((m) => m.type === "error")).toEqual([]);
  });

  it("cuts no final and sends no text out of a music bed alone with the Silero VAD", async () => {
    const bed = await musicBed();
    const rms = Math.sqrt(bed.reduce((sum, x) => sum + x * x, 0) / bed.length);
    const music = bed.map((x) => (x * 10 ** (-25 / 20)) / rms);
    const { messages } = await stream(concat(quiet(500), music, quiet(1000)), silero, true);
    expect(messages.filter((m) => m.type !== "error")).toEqual([]);
    expect(messages.filter((m) => m.type === "error")).toEqual([]);
  });

  it("sends a final once speech ends, before the client says `end`, with the Silero VAD", async () => {
    const { finals } = await stream(concat(quiet(500), speech, quiet(1500)), silero, false);
    expect(finals.length).toBeGreaterThanOrEqual(1);
    const last = finals.at(-1);
    expect(last?.end).toBeGreaterThan(0.5 + speech.length / SR - 0.5);
    expect(last?.end).toBeLessThanOrEqual(0.5 + speech.length / SR + 0.1);
  });

  it("sends the final of a speaker who mutes right after speaking (frames stop, no trailing silence)", async () => {
    const started = performance.now();
    const { finals } = await stream(concat(quiet(500), speech), silero, false);
    expect(finals.length).toBeGreaterThanOrEqual(1);
    expect(finals.at(-1)?.end).toBeGreaterThan(0.5 + speech.length / SR - 0.5);
    expect(performance.now() - started).toBeLessThan(30_000); // not the 30 s the helper waits at most
  }, 60_000);

  it("round-trips PCM16 little-endian samples", () => {
    const samples = new Float32Array([0, 0.5, -0.5, 0.999, -1, 2]);
    const bytes = float32ToPcm16(samples);
    expect([...bytes.subarray(0, 4)]).toEqual([0x00, 0x00, 0x00, 0x40]);
    expect([...pcm16ToFloat32(bytes)]).toEqual([0, 0.5, -0.5, expect.closeTo(0.999, 3), -1, 32767 / 32768]);
  });
});
