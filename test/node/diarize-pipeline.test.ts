/**
 * End to end on synthetic dialogues (espeak-ng voices, see test/helpers/dialogue.ts). DER is scored
 * without a collar, so boundary slop counts too; the bounds are far below what a pipeline that
 * merged speakers (about 50%) or missed speech would reach.
 */
import { beforeAll, describe, expect, it } from "vitest";
import {
  assignSpeakers,
  BYTES_PER_AUDIO_MINUTE,
  Diarizer,
  type DiarizerOptions,
  diarizationErrorRate,
  type SpeakerTurn,
} from "../../inference-node/diarize/index.ts";
import { buildDialogue, type Dialogue } from "../helpers/dialogue.ts";

const RATE = 16_000;

function diarize(pcm: Float32Array, options: DiarizerOptions = {}, chunk = 30 * RATE): SpeakerTurn[] {
  const diarizer = new Diarizer(options);
  for (let at = 0; at < pcm.length; at += chunk) diarizer.push(pcm.subarray(at, at + chunk));
  return diarizer.finish();
}

const speakers = (turns: SpeakerTurn[]) => new Set(turns.map((t) => t.speaker)).size;

let two: Dialogue;
let three: Dialogue;
let one: Dialogue;

beforeAll(async () => {
  [two, three, one] = await Promise.all([
    buildDialogue(2, 24, 1),
    buildDialogue(3, 30, 2),
    buildDialogue(1, 10, 3),
  ]);
});

describe("Diarizer on synthetic dialogues", () => {
  it("finds exactly two speakers in a two-voice dialogue with DER under 15%", () => {
    const turns = diarize(two.pcm);
    expect(speakers(turns)).toBe(2);
    expect(turns[0]!.speaker).toBe("SPEAKER_00");
    const { der } = diarizationErrorRate(two.turns, turns);
    expect(der).toBeLessThan(0.15);
    // Labelled as transcript segments, the reference utterances of each voice get one label, a
    // different one per voice, almost always.
    const labelled = assignSpeakers(two.turns, turns);
    const votes = new Map<string, Map<string | null, number>>();
    for (const [i, segment] of labelled.entries()) {
      const voice = votes.get(two.turns[i]!.speaker) ?? new Map<string | null, number>();
      voice.set(segment.speaker, (voice.get(segment.speaker) ?? 0) + 1);
      votes.set(two.turns[i]!.speaker, voice);
    }
    const majorities = [...votes.values()].map((voice) => [...voice].sort((a, b) => b[1] - a[1])[0]!);
    expect(new Set(majorities.map(([label]) => label)).size).toBe(2);
    expect(majorities.reduce((sum, [, count]) => sum + count, 0) / labelled.length).toBeGreaterThanOrEqual(
      0.9,
    );
  });

  it("finds exactly three speakers in a three-voice dialogue with DER under 15%", () => {
    const turns = diarize(three.pcm);
    expect(speakers(turns)).toBe(3);
    expect(diarizationErrorRate(three.turns, turns).der).toBeLessThan(0.15);
  });

  it("keeps a monologue as one speaker", () => {
    const turns = diarize(one.pcm);
    expect(speakers(turns)).toBe(1);
    expect(diarizationErrorRate(one.turns, turns).der).toBeLessThan(0.15);
  });

  it("obeys a known speaker count", () => {
    expect(speakers(diarize(three.pcm, { numSpeakers: 2 }))).toBe(2);
    expect(speakers(diarize(three.pcm, { maxSpeakers: 2 }))).toBe(2);
  });

  it("returns the same turns whatever the push chunking", () => {
    const whole = diarize(two.pcm, {}, two.pcm.length);
    let state = 9;
    const diarizer = new Diarizer();
    for (let at = 0; at < two.pcm.length; ) {
      state = (state * 1664525 + 1013904223) >>> 0;
      const size = 1 + (state % 40_000);
      diarizer.push(two.pcm.subarray(at, at + size));
      at += size;
    }
    expect(diarizer.finish()).toEqual(whole);
  });
});

describe("Diarizer edge cases", () => {
  it("returns no turns for silence or a faint noise floor", () => {
    expect(diarize(new Float32Array(60 * RATE))).toEqual([]);
    let state = 1;
    const noise = Float32Array.from({ length: 60 * RATE }, () => {
      state = (state * 1664525 + 1013904223) >>> 0;
      return (state / 2 ** 32 - 0.5) * 0.003;
    });
    expect(diarize(noise)).toEqual([]);
    expect(new Diarizer().finish()).toEqual([]);
  });

  it("finishes once: the same turns again, and no pushes afterwards", () => {
    const diarizer = new Diarizer();
    diarizer.push(one.pcm);
    const turns = diarizer.finish();
    expect(diarizer.finish()).toBe(turns);
    expect(() => diarizer.push(new Float32Array(10))).toThrow(/after finish/);
  });
});

describe("Diarizer memory", () => {
  it("keeps features for 60 minutes of audio within the documented bytes per minute", () => {
    // Two synthetic "voices" (harmonic buzzes at 110 and 220 Hz) alternating every 4 s, 0.5 s pauses.
    const chunk = new Float32Array(30 * RATE);
    for (let i = 0; i < chunk.length; i++) {
      const t = i / RATE;
      const slot = Math.floor(t / 4.5);
      if (t - slot * 4.5 > 4) continue;
      const f0 = slot % 2 === 0 ? 110 : 220;
      let x = 0;
      for (let h = 1; h <= 10; h++) x += Math.sin(2 * Math.PI * f0 * h * t) / h;
      chunk[i] = 0.2 * x;
    }
    const diarizer = new Diarizer();
    const minutes = 60;
    for (let i = 0; i < minutes * 2; i++) diarizer.push(chunk);
    // Documented bound: BYTES_PER_AUDIO_MINUTE of block statistics (plus at most one partly used
    // page), and 16 bytes per speech interval.
    const intervals = (minutes * 60) / 4.5;
    const bound = BYTES_PER_AUDIO_MINUTE * minutes + 256 * 42 * 4 + 16 * intervals;
    expect(diarizer.featureBytes).toBeGreaterThan(BYTES_PER_AUDIO_MINUTE * minutes * 0.99);
    expect(diarizer.featureBytes).toBeLessThanOrEqual(bound);
    expect(BYTES_PER_AUDIO_MINUTE).toBe(40_320);
    const turns = diarizer.finish();
    expect(turns.length).toBeGreaterThan(700);
    expect(speakers(turns)).toBe(2);
  });
});
