import { beforeAll, describe, expect, it } from "vitest";
import { speechStream } from "../../inference-node/pipeline/speech-stream.ts";
import { SileroVad } from "../../inference-node/vad/silero.ts";
import { EnergyVoiceActivity } from "../../inference-node/vad/voice-activity.ts";
import { SENTENCE, speechPcm } from "../native/audio.ts";
import { concat, quiet, SR } from "./live-helpers.ts";

let silero: SileroVad;
let speech: Float32Array;

beforeAll(async () => {
  silero = await SileroVad.load();
  speech = await speechPcm(SENTENCE);
});

async function* chunks(pcm: Float32Array): AsyncGenerator<Float32Array> {
  for (let at = 0; at < pcm.length; at += 7777) yield pcm.slice(at, at + 7777);
}

async function drain(pcm: AsyncIterable<Float32Array>): Promise<number> {
  let samples = 0;
  for await (const chunk of pcm) samples += chunk.length;
  return samples;
}

describe("speechStream (what a transcription decodes and diarizes)", () => {
  it("with Silero: skips the long silence, and the diarizer hears the whole input with speech turns only", async () => {
    const input = concat(quiet(500), speech, quiet(10_000), speech, quiet(500));
    const s = speechStream(chunks(input), { vad: silero, diarize: true, skipNonSpeechSec: 2 });
    const decoded = await drain(s.pcm);
    expect(s.timeMap?.originalSamples).toBe(input.length);
    expect(decoded).toBe(s.timeMap?.keptSamples);
    expect(decoded).toBeLessThan(input.length - 9 * SR);
    const turns = s.finishDiarization() ?? [];
    expect(turns.length).toBeGreaterThan(0);
    const silence: [number, number] = [0.5 + speech.length / SR + 0.5, 0.5 + speech.length / SR + 9.5];
    for (const t of turns) expect(t.end <= silence[0] || t.start >= silence[1], JSON.stringify(t)).toBe(true);
    expect(turns.at(-1)?.end).toBeGreaterThan(10.5 + speech.length / SR);
  });

  it("with Silero and skipping off: decodes every sample", async () => {
    const input = concat(quiet(500), speech, quiet(5000));
    const s = speechStream(chunks(input), { vad: silero, diarize: true, skipNonSpeechSec: 0 });
    expect(await drain(s.pcm)).toBe(input.length);
    expect(s.timeMap).toBeNull();
  });

  it("with the energy fallback: decodes every sample and skips nothing", async () => {
    const input = concat(quiet(500), speech, quiet(5000));
    const s = speechStream(chunks(input), {
      vad: new EnergyVoiceActivity(),
      diarize: false,
      skipNonSpeechSec: 2,
    });
    expect(await drain(s.pcm)).toBe(input.length);
    expect(s.timeMap).toBeNull();
    expect(s.diarizing).toBe(false);
    expect(s.finishDiarization()).toBeNull();
  });
});
