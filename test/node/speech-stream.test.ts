import { beforeAll, describe, expect, it } from "vitest";
import { speechStream } from "../../inference-node/pipeline/speech-stream.ts";
import { chunkingPlan } from "../../inference-node/vad/chunking-plan.ts";
import { SileroVad } from "../../inference-node/vad/silero.ts";
import { EnergyVoiceActivity, type VoiceActivity } from "../../inference-node/vad/voice-activity.ts";
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
    const s = speechStream(chunks(input), { vad: silero, diarize: true, skip: { minGapSec: 2 } });
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
    const s = speechStream(chunks(input), { vad: silero, diarize: true, skip: null });
    expect(await drain(s.pcm)).toBe(input.length);
    expect(s.timeMap).toBeNull();
  });

  it("with the energy fallback: decodes every sample and skips nothing", async () => {
    const input = concat(quiet(500), speech, quiet(5000));
    const s = speechStream(chunks(input), {
      vad: new EnergyVoiceActivity(),
      diarize: false,
      skip: { minGapSec: 2 },
    });
    expect(await drain(s.pcm)).toBe(input.length);
    expect(s.timeMap).toBeNull();
    expect(s.diarizing).toBe(false);
    expect(s.finishDiarization()).toBeNull();
  });

  it("runs no VAD at all when nothing is skipped and nothing diarized, and passes a request's threshold on", async () => {
    const thresholds: (number | undefined)[] = [];
    const counted: VoiceActivity = {
      kind: "silero",
      stream: (options) => {
        thresholds.push(options?.speechThreshold);
        return silero.stream(options);
      },
    };
    const input = concat(speech, quiet(3000), speech);
    const whole = speechStream(chunks(input), { vad: counted, diarize: false, skip: null });
    expect(await drain(whole.pcm)).toBe(input.length);
    expect(thresholds).toEqual([]);
    const planned = speechStream(chunks(input), {
      vad: counted,
      diarize: false,
      ...chunkingPlan(
        { type: "server_vad", threshold: 0.7, prefix_padding_ms: 100, silence_duration_ms: 500 },
        2,
      ),
    });
    const decoded = await drain(planned.pcm);
    expect(thresholds).toEqual([0.7]);
    // ~3 s of pause less 0.1 s at each edge left out, where the node's own 2 s gap would leave out 2.4 s
    expect(input.length - decoded).toBeGreaterThan(2.5 * SR);
  });
});

describe("chunkingPlan (a task's chunking as the node applies it)", () => {
  it("decodes every sample for none, uses the node's gap for auto and for tasks without one, and a server_vad's own values", () => {
    expect(chunkingPlan("none", 2)).toEqual({ skip: null });
    expect(chunkingPlan("auto", 2)).toEqual({ skip: { minGapSec: 2 } });
    expect(chunkingPlan(undefined, 3)).toEqual({ skip: { minGapSec: 3 } });
    expect(chunkingPlan("auto", 0)).toEqual({ skip: null });
    const vad = {
      type: "server_vad",
      threshold: 0.6,
      prefix_padding_ms: 250,
      silence_duration_ms: 500,
    } as const;
    expect(chunkingPlan(vad, 0)).toEqual({
      skip: { minGapSec: 0.5, padSec: 0.25, breakSec: 2 },
      speechThreshold: 0.6,
    });
    expect(chunkingPlan({ ...vad, silence_duration_ms: 4000 }, 2).skip?.breakSec).toBe(4);
  });
});
