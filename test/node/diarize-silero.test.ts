/**
 * The diarizer with its speech regions from the Silero VAD (what file jobs use when Silero loads), on
 * the synthetic dialogues and the short-exchange cases of diarize-pipeline/diarize-short: the same
 * speaker counts and DER bounds as with the energy VAD. Both DERs are printed per case for comparison.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { Diarizer, diarizationErrorRate, type SpeakerTurn } from "../../inference-node/diarize/index.ts";
import { LabelledVoicing } from "../../inference-node/diarize/labelled-voicing.ts";
import { SileroVad } from "../../inference-node/vad/silero.ts";
import { labelSpeech } from "../../inference-node/vad/speech-labels.ts";
import { buildDialogue, type Dialogue } from "../helpers/dialogue.ts";
import { type DiarizationCase, exchangeCase } from "../helpers/diarize-sets.ts";

const RATE = 16_000;
let vad: SileroVad;

async function* chunks(pcm: Float32Array): AsyncGenerator<Float32Array> {
  for (let at = 0; at < pcm.length; at += 30 * RATE) yield pcm.subarray(at, at + 30 * RATE);
}

/** Diarizes with Silero's regions, as the transcription pipeline does. */
async function withSilero(pcm: Float32Array): Promise<SpeakerTurn[]> {
  const stream = vad.stream();
  const voicing = new LabelledVoicing(stream.frameSamples);
  const diarizer = new Diarizer({ voicing });
  for await (const chunk of labelSpeech(chunks(pcm), stream)) {
    voicing.label(chunk.speech);
    diarizer.push(chunk.pcm);
  }
  return diarizer.finish();
}

function withEnergy(pcm: Float32Array): SpeakerTurn[] {
  const diarizer = new Diarizer();
  for (let at = 0; at < pcm.length; at += 30 * RATE) diarizer.push(pcm.subarray(at, at + 30 * RATE));
  return diarizer.finish();
}

const speakers = (turns: SpeakerTurn[]) => new Set(turns.map((t) => t.speaker)).size;

const CASES: [DiarizationCase, number][] = [
  [exchangeCase("short", "m3-f3", ["us-m3", "us-f3"], 4, 2001), 0.15],
  [exchangeCase("short", "f4-rp", ["en-f4", "rp-m2"], 4, 2002), 0.15],
  [exchangeCase("three", "m3-f4-kal", ["us-m3", "en-f4", "kal"], 6, 2101), 0.15],
  [exchangeCase("mixed", "kal-f3", ["kal", "us-f3"], 4, 2201), 0.2],
  [exchangeCase("noisy", "m3-f3", ["us-m3", "us-f3"], 4, 2301, 10), 0.2],
  [exchangeCase("noisy", "kal-f5", ["kal", "us-f5"], 4, 2302, 10), 0.2],
  [exchangeCase("single", "f3", ["us-f3"], 8, 2402), 0.15],
  [exchangeCase("single", "f4-noisy", ["en-f4"], 6, 2405, 10), 0.15],
];

const built = new Map<DiarizationCase, Dialogue>();
let two: Dialogue;
let three: Dialogue;

beforeAll(async () => {
  vad = await SileroVad.load();
  [two, three] = await Promise.all([buildDialogue(2, 24, 1), buildDialogue(3, 30, 2)]);
  for (const [c] of CASES) built.set(c, await c.build());
}, 300_000);

describe("Diarizer with Silero speech regions", () => {
  it("finds two and three speakers in the synthetic dialogues with DER under 15%", async () => {
    for (const [name, dialogue, count] of [
      ["two", two, 2],
      ["three", three, 3],
    ] as const) {
      const turns = await withSilero(dialogue.pcm);
      const der = diarizationErrorRate(dialogue.turns, turns).der;
      const energy = diarizationErrorRate(dialogue.turns, withEnergy(dialogue.pcm)).der;
      console.log(`DER ${name}: energy ${energy.toFixed(3)}, silero ${der.toFixed(3)}`);
      expect(speakers(turns), name).toBe(count);
      expect(der, name).toBeLessThan(0.15);
    }
  });

  it("holds the short-exchange bounds: counts, noise at 10 dB SNR, single speakers", async () => {
    for (const [c, maxDer] of CASES) {
      const dialogue = built.get(c)!;
      const turns = await withSilero(dialogue.pcm);
      const der = diarizationErrorRate(dialogue.turns, turns).der;
      const energy = diarizationErrorRate(dialogue.turns, withEnergy(dialogue.pcm)).der;
      console.log(`DER ${c.name}: energy ${energy.toFixed(3)}, silero ${der.toFixed(3)}`);
      expect({ case: c.name, speakers: speakers(turns) }).toEqual({ case: c.name, speakers: c.speakers });
      expect(der, c.name).toBeLessThan(maxDer);
    }
  });
});
