import { describe, expect, it } from "vitest";
import { type SegmentEvent, Segmenter, type SegmenterOptions } from "../../inference-node/live/segmenter.ts";
import { SileroVad } from "../../inference-node/vad/silero.ts";
import { energyDb } from "../../inference-node/vad/voice-activity.ts";
import { speechPcm } from "../native/audio.ts";
import { concat, quiet, SR, tone } from "./live-helpers.ts";

/** Runs a whole signal through a segmenter in `chunk`-sample pieces; ends with their event and position. */
async function run(pcm: Float32Array, options: SegmenterOptions = {}, chunk = 1600) {
  const seg = new Segmenter(options);
  const ends: { event: Extract<SegmentEvent, { type: "end" }>; at: number }[] = [];
  const tentative: { event: Extract<SegmentEvent, { type: "tentative_end" }>; at: number }[] = [];
  let starts = 0;
  for (let at = 0; at < pcm.length; at += chunk) {
    for (const event of await seg.push(pcm.subarray(at, at + chunk))) {
      if (event.type === "start") starts++;
      else if (event.type === "tentative_end") tentative.push({ event, at: seg.position });
      else ends.push({ event, at: seg.position });
    }
  }
  return { seg, ends, starts, tentative };
}

const sec = (samples: number) => samples / SR;

describe("Segmenter (energy VAD + hangover endpointing)", () => {
  it("cuts one utterance per burst when the pause exceeds the silence hangover", async () => {
    const { ends, starts } = await run(concat(quiet(500), tone(1000), quiet(800), tone(700), quiet(1000)));
    expect(starts).toBe(2);
    expect(ends.map((e) => e.event.cause)).toEqual(["pause", "pause"]);
    const [a, b] = ends.map((e) => e.event.utterance);
    expect(sec(a?.speechStart ?? 0)).toBeCloseTo(0.5, 1);
    expect(sec(a?.lastVoicedEnd ?? 0)).toBeCloseTo(1.5, 1);
    expect(sec(b?.speechStart ?? 0)).toBeCloseTo(2.3, 1);
    expect(sec(b?.lastVoicedEnd ?? 0)).toBeCloseTo(3.0, 1);
  });

  it("ends an utterance `silenceMs` of audio after its last voiced frame (configurable)", async () => {
    for (const silenceMs of [300, 600, 900]) {
      const { ends } = await run(concat(quiet(300), tone(800), quiet(1500)), { silenceMs }, 160);
      expect(ends).toHaveLength(1);
      const { event, at } = ends[0] ?? { event: null, at: 0 };
      expect(sec(at - (event?.utterance.lastVoicedEnd ?? 0))).toBeCloseTo(silenceMs / 1000, 1);
    }
  });

  it("keeps pauses shorter than the hangover inside one utterance", async () => {
    const { ends } = await run(concat(quiet(300), tone(500), quiet(300), tone(500), quiet(1000)));
    expect(ends).toHaveLength(1);
    expect(sec(ends[0]?.event.utterance.lastVoicedEnd ?? 0)).toBeCloseTo(1.6, 1);
  });

  it("cuts at the maximum utterance length and starts the next one at once", async () => {
    const { ends } = await run(concat(quiet(200), tone(5000), quiet(1000)), { maxUtteranceMs: 2000 });
    expect(ends.map((e) => e.event.cause)).toEqual(["max_length", "max_length", "pause"]);
    for (const { event } of ends) expect(event.audio.length).toBeLessThanOrEqual(2.3 * SR);
    // no audio lost between the pieces: the next buffer starts where the previous one ended
    const [first, second] = ends.map((e) => e.event.utterance);
    expect(second?.startSample).toBe((first?.startSample ?? 0) + (first?.length ?? 0));
  });

  it("drops clicks shorter than the minimum speech", async () => {
    const { ends, starts } = await run(concat(quiet(500), tone(60), quiet(1500)));
    expect(starts).toBe(1);
    expect(ends).toHaveLength(0);
  });

  it("keeps a pre-roll before the onset and a short tail after the last voiced frame", async () => {
    const { ends } = await run(concat(quiet(1000), tone(1000), quiet(1000)));
    const { utterance, audio } = ends[0]?.event ?? { utterance: null, audio: new Float32Array() };
    expect(sec((utterance?.speechStart ?? 0) - (utterance?.startSample ?? 0))).toBeCloseTo(0.2, 1);
    expect(sec(audio.length)).toBeCloseTo(0.2 + 1.0 + 0.2, 1);
  });

  it("announces a tentative end once the tail is heard, carrying exactly the audio the end then carries", async () => {
    const { ends, tentative } = await run(concat(quiet(300), tone(800), quiet(1500)), { tailMs: 200 }, 160);
    expect(tentative).toHaveLength(1);
    const [pause] = tentative;
    const [end] = ends;
    expect(pause?.event.utterance).toBe(end?.event.utterance);
    // the tail after the last voiced frame, not the whole 600 ms pause
    expect(sec((pause?.at ?? 0) - (end?.event.utterance.lastVoicedEnd ?? 0))).toBeCloseTo(0.2, 1);
    expect(pause?.at).toBeLessThan(end?.at ?? 0);
    expect(Array.from(pause?.event.audio ?? [])).toEqual(Array.from(end?.event.audio ?? [1]));
  });

  it("announces a tentative end at every pause, each with the audio up to it, and none for a click", async () => {
    const { ends, tentative } = await run(concat(quiet(300), tone(500), quiet(300), tone(500), quiet(1000)));
    expect(ends).toHaveLength(1);
    expect(tentative).toHaveLength(2); // the short pause, then the real end
    const [early, last] = tentative.map((t) => t.event.audio.length);
    expect(early).toBeLessThan(last ?? 0);
    expect(last).toBe(ends[0]?.event.audio.length);
    const click = await run(concat(quiet(500), tone(60), quiet(1500)));
    expect(click.tentative).toHaveLength(0);
  });

  it("gives the same cuts whatever the chunking", async () => {
    const pcm = concat(quiet(400), tone(900), quiet(700), tone(400), quiet(900));
    const cuts = async (chunk: number) =>
      (await run(pcm, {}, chunk)).ends.map((e) => [
        e.event.utterance.speechStart,
        e.event.utterance.lastVoicedEnd,
      ]);
    expect(await cuts(37)).toEqual(await cuts(3200));
  });

  it("flush ends the utterance in progress", async () => {
    const { seg, ends } = await run(concat(quiet(300), tone(800)));
    expect(ends).toHaveLength(0);
    expect(seg.flush()).toMatchObject([{ type: "end", cause: "flush" }]);
    expect(seg.flush()).toEqual([]);
  });

  it("finds espeak-ng speech and nothing in the silence around it", async () => {
    const speech = await speechPcm("The quick brown fox jumps over the lazy dog.");
    const { ends } = await run(concat(quiet(1000), speech, quiet(1500)));
    expect(ends.length).toBeGreaterThanOrEqual(1);
    const first = ends[0]?.event.utterance;
    const last = ends.at(-1)?.event.utterance;
    expect(sec(first?.speechStart ?? 0)).toBeGreaterThan(0.9);
    expect(sec(last?.lastVoicedEnd ?? 0)).toBeLessThanOrEqual(1 + speech.length / SR + 0.05);
    expect(sec(last?.lastVoicedEnd ?? 0)).toBeGreaterThan(1 + speech.length / SR - 0.5);
  });

  it("with the Silero VAD: ends on `silenceMs` of VAD silence after espeak-ng speech (configurable)", async () => {
    const silero = await SileroVad.load();
    const speech = await speechPcm("The quick brown fox jumps over the lazy dog.");
    for (const silenceMs of [300, 500, 800]) {
      const { ends } = await run(
        concat(quiet(500), speech, quiet(1500)),
        {
          silenceMs,
          vad: silero.stream(),
        },
        512,
      ); // one frame a push: `at` is the exact cut
      expect(ends).toHaveLength(1);
      const { event, at } = ends[0] ?? { event: null, at: 0 };
      expect(event?.cause).toBe("pause");
      // cut one whole 32 ms frame at most after the silence ran out
      const waited = sec(at - (event?.utterance.lastVoicedEnd ?? 0));
      expect(waited).toBeGreaterThanOrEqual(silenceMs / 1000);
      expect(waited).toBeLessThan(silenceMs / 1000 + 0.033);
      expect(sec(event?.utterance.speechStart ?? 0)).toBeGreaterThan(0.4);
      expect(sec(event?.utterance.lastVoicedEnd ?? 0)).toBeGreaterThan(0.5 + speech.length / SR - 0.5);
    }
  });

  it("measures frame energy in dBFS, with digital silence floored", () => {
    expect(energyDb(new Float32Array(160).fill(1))).toBeCloseTo(0, 5);
    expect(energyDb(new Float32Array(160))).toBe(-120);
  });
});
