import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeStream } from "../../inference-node/pipeline/decode-stream.ts";
import { SileroVad } from "../../inference-node/vad/silero.ts";
import { skipNonSpeech, TimeMap } from "../../inference-node/vad/skip-non-speech.ts";
import { labelSpeech } from "../../inference-node/vad/speech-labels.ts";
import { loadModel, type WhisperModel } from "../../native/index.ts";
import { SENTENCE, speechPcm } from "../native/audio.ts";
import { microModelPath } from "../native/helpers.ts";
import { concat, quiet, SR } from "./live-helpers.ts";

let vad: SileroVad;
let model: WhisperModel;
let speech: Float32Array;

beforeAll(async () => {
  vad = await SileroVad.load();
  model = await loadModel(await microModelPath(), { threads: 2 });
  speech = await speechPcm(SENTENCE);
});
afterAll(() => model.dispose());

async function* chunks(pcm: Float32Array, size = 4000): AsyncGenerator<Float32Array> {
  for (let at = 0; at < pcm.length; at += size) yield pcm.slice(at, at + size);
}

async function collect(pcm: AsyncIterable<Float32Array>): Promise<Float32Array> {
  const parts: Float32Array[] = [];
  for await (const part of pcm) parts.push(part);
  return concat(...parts);
}

/** Speech, 30 s of room tone, speech, 30 s of room tone: mostly silent. */
function halfSilent() {
  const gap = quiet(30_000);
  const pcm = concat(quiet(300), speech, gap, speech, gap);
  const firstEnd = 0.3 * SR + speech.length;
  const secondStart = firstEnd + gap.length;
  const secondEnd = secondStart + speech.length;
  // the silences less the 0.3 s kept at each edge and a frame of slack for the VAD's own edges
  const slack = 0.3 * SR + 512;
  const silences: [number, number][] = [
    [(firstEnd + slack) / SR, (secondStart - slack) / SR],
    [(secondEnd + slack) / SR, pcm.length / SR],
  ];
  return { pcm, silences };
}

describe("TimeMap", () => {
  it("maps kept time back to the input's, a join's start after the gap and its end before it", () => {
    const map = new TimeMap();
    map.keep(0, SR);
    map.keep(SR, SR / 2); // contiguous: same piece
    map.keep(5 * SR, SR);
    expect(map.keptSamples).toBe(2.5 * SR);
    expect(map.toOriginal(0.25, "start")).toBe(0.25);
    expect(map.toOriginal(1.5, "start")).toBe(5);
    expect(map.toOriginal(1.5, "end")).toBe(1.5);
    expect(map.toOriginal(2, "end")).toBe(5.5);
    expect(map.toOriginal(99, "end")).toBe(6);
  });

  it("is the identity while nothing was kept", () => {
    expect(new TimeMap().toOriginal(3.25, "start")).toBe(3.25);
  });
});

describe("skipNonSpeech (Silero)", () => {
  it("takes long silences out and maps every kept sample back to the very same input sample", async () => {
    const { pcm, silences } = halfSilent();
    const map = new TimeMap();
    const kept = await collect(skipNonSpeech(labelSpeech(chunks(pcm, 1234), vad.stream()), map, 2));
    expect(map.originalSamples).toBe(pcm.length);
    expect(kept.length).toBe(map.keptSamples);
    // two utterances plus edges: well under half the input
    expect(kept.length).toBeLessThan(2 * speech.length + 3 * SR);
    expect(kept.length).toBeGreaterThan(2 * speech.length);
    for (let k = 0; k < kept.length; k += 97) {
      const original = Math.round(map.toOriginal(k / SR, "start") * SR);
      expect(kept[k]).toBe(pcm[original]);
      for (const [from, to] of silences) expect(original / SR <= from || original / SR >= to).toBe(true);
    }
  });

  it("keeps pauses shorter than the gap, and everything when there is no long pause", async () => {
    const pcm = concat(speech, quiet(1500), speech);
    const map = new TimeMap();
    const kept = await collect(skipNonSpeech(labelSpeech(chunks(pcm), vad.stream()), map, 2));
    expect(kept).toEqual(pcm);
    expect(map.toOriginal(kept.length / SR, "end")).toBe(pcm.length / SR);
  });

  it("decodes nothing over skipped silence, at the input's times, for less decode work", async () => {
    const { pcm, silences } = halfSilent();
    const request = { language: "en", translate: false, context: "", maxTokens: 16, temperatureInc: 0 };
    const whole = await decodeStream(model, chunks(pcm), {
      ...request,
      signal: new AbortController().signal,
    });
    const map = new TimeMap();
    const skipped = await decodeStream(model, skipNonSpeech(labelSpeech(chunks(pcm), vad.stream()), map, 2), {
      ...request,
      timeMap: map,
      signal: new AbortController().signal,
    });
    const overSilence = (segments: { start: number; end: number }[]) =>
      segments.filter((s) => silences.some(([from, to]) => s.start < to && s.end > from)).length;
    console.log(
      `mostly silent ${pcm.length / SR} s: whole ${whole.segments.length} segments (${overSilence(whole.segments)} over silence), ` +
        `${Math.round(whole.asrMs)} ms; skipped ${(map.originalSamples - map.keptSamples) / SR} s, ` +
        `${skipped.segments.length} segments (${overSilence(skipped.segments)} over silence), ${Math.round(skipped.asrMs)} ms`,
    );
    expect(skipped.durationSec).toBe(whole.durationSec);
    expect(skipped.segments.length).toBeGreaterThan(0);
    expect(overSilence(skipped.segments)).toBe(0);
    for (const s of skipped.segments) {
      expect(s.start).toBeGreaterThanOrEqual(0);
      expect(s.end).toBeLessThanOrEqual(pcm.length / SR);
      expect(s.end).toBeGreaterThanOrEqual(s.start);
    }
  });
});
