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
    const kept = await collect(
      skipNonSpeech(labelSpeech(chunks(pcm, 1234), vad.stream()), map, { minGapSec: 2 }),
    );
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
    const kept = await collect(skipNonSpeech(labelSpeech(chunks(pcm), vad.stream()), map, { minGapSec: 2 }));
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
    const skipped = await decodeStream(
      model,
      skipNonSpeech(labelSpeech(chunks(pcm), vad.stream()), map, { minGapSec: 2 }),
      {
        ...request,
        timeMap: map,
        signal: new AbortController().signal,
      },
    );
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

  it("keeps padSec at each edge of a shorter gap, ends a window only at a run of breakSec, and keeps no sample twice", async () => {
    const pcm = concat(speech, quiet(1500), speech);
    const run = async (options: { minGapSec: number; padSec?: number; breakSec?: number }) => {
      const map = new TimeMap();
      const parts: Float32Array[] = [];
      for await (const part of skipNonSpeech(labelSpeech(chunks(pcm), vad.stream()), map, options))
        parts.push(part);
      const kept = concat(...parts);
      const originals = Array.from({ length: Math.floor(kept.length / 64) }, (_, i) =>
        Math.round(map.toOriginal((i * 64) / SR, "start") * SR),
      );
      for (const [i, original] of originals.entries()) expect(kept[i * 64]).toBe(pcm[original]);
      // strictly increasing: no input sample is decoded twice, even with padding wider than the gap
      for (let i = 1; i < originals.length; i++) expect(originals[i]).toBeGreaterThan(originals[i - 1] ?? -1);
      return { dropped: (pcm.length - kept.length) / SR, breaks: parts.filter((p) => p.length === 0).length };
    };
    // ~1.5 s of pause (plus the VAD's own edges): 0.2 s kept at each side, the rest left out
    const padded = await run({ minGapSec: 0.5, padSec: 0.2, breakSec: 2 });
    expect(padded.dropped).toBeGreaterThan(0.9);
    expect(padded.dropped).toBeLessThan(1.5);
    expect(padded.breaks).toBe(0);
    const broken = await run({ minGapSec: 0.5, padSec: 0.2 });
    expect(broken.breaks).toBe(1);
    expect(broken.dropped).toBeCloseTo(padded.dropped, 5);
    const unpadded = await run({ minGapSec: 0.5, padSec: 0 });
    expect(unpadded.dropped).toBeGreaterThan(padded.dropped + 0.35);
  });

  it("never keeps a frame twice when the padding is wider than half the gap", async () => {
    // frames of 512 numbered samples: 3 speech, 6 non-speech, 3 speech; the gap is 4 frames
    const labels = [true, true, true, false, false, false, false, false, false, true, true, true];
    const pcm = Float32Array.from({ length: labels.length * 512 }, (_, i) => i);
    async function* labelled() {
      yield { pcm, speech: labels, frameSamples: 512 };
    }
    const map = new TimeMap();
    const kept = await collect(skipNonSpeech(labelled(), map, { minGapSec: (4 * 512) / SR, padSec: 5 }));
    const frames = Array.from({ length: kept.length / 512 }, (_, i) => (kept[i * 512] ?? 0) / 512);
    // two frames of padding on each side (half the 5-frame run that crossed the gap); the middle two left out
    expect(frames).toEqual([0, 1, 2, 3, 4, 7, 8, 9, 10, 11]);
    expect(map.toOriginal(5 * (512 / SR), "start")).toBe((7 * 512) / SR);
  });
});

describe("SileroVad speech threshold", () => {
  it("opens speech on fewer frames as the threshold rises", async () => {
    const frames = async (speechThreshold: number) => {
      const stream = vad.stream({ speechThreshold });
      let count = 0;
      for (let at = 0; at + 512 <= speech.length; at += 512) {
        if (await stream.isSpeech(speech.subarray(at, at + 512))) count++;
      }
      return count;
    };
    const low = await frames(0.05);
    const usual = await frames(0.5);
    const high = await frames(0.999);
    expect(low).toBeGreaterThan(usual);
    expect(usual).toBeGreaterThan(high);
    expect(await frames(0.5)).toBe(usual);
  });
});
