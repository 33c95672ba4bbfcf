/**
 * The shapes voice notes and short calls come in, end to end through the Diarizer: a 2-speaker
 * exchange of four 2-3 s turns in 8-15 s, three speakers in about 20 s, festival voices mixed with
 * espeak-ng ones, pink noise at 10 dB SNR, and single-speaker clips that must not be split. The cases
 * use other seeds than the bench's evaluation set (test/helpers/diarize-sets.ts), so they also check
 * that the tuning holds beyond the cases it was read from. DER is scored without a collar: the bounds
 * sit far below what merging two speakers of a short exchange scores (40-55%).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { Diarizer, diarizationErrorRate, type SpeakerTurn } from "../../inference-node/diarize/index.ts";
import type { Dialogue } from "../helpers/dialogue.ts";
import { type DiarizationCase, exchangeCase } from "../helpers/diarize-sets.ts";

const RATE = 16_000;

function diarize(pcm: Float32Array): SpeakerTurn[] {
  const diarizer = new Diarizer();
  for (let at = 0; at < pcm.length; at += 30 * RATE) diarizer.push(pcm.subarray(at, at + 30 * RATE));
  return diarizer.finish();
}

const speakers = (turns: SpeakerTurn[]) => new Set(turns.map((t) => t.speaker)).size;

const CASES = {
  exchanges: [
    exchangeCase("short", "m3-f3", ["us-m3", "us-f3"], 4, 2001),
    exchangeCase("short", "f4-rp", ["en-f4", "rp-m2"], 4, 2002),
    exchangeCase("short", "f5-m1", ["us-f5", "us-m1"], 4, 2003),
  ],
  threes: [
    exchangeCase("three", "m3-f4-kal", ["us-m3", "en-f4", "kal"], 6, 2101),
    exchangeCase("three", "scot-f5-slt", ["scot-m7", "us-f5", "slt"], 6, 2102),
  ],
  mixed: [
    exchangeCase("mixed", "kal-f3", ["kal", "us-f3"], 4, 2201),
    exchangeCase("mixed", "slt-m1", ["slt", "us-m1"], 4, 2202),
    exchangeCase("mixed", "ked-f4", ["ked", "en-f4"], 4, 2203),
  ],
  noisy: [
    exchangeCase("noisy", "m3-f3", ["us-m3", "us-f3"], 4, 2301, 10),
    exchangeCase("noisy", "kal-f5", ["kal", "us-f5"], 4, 2302, 10),
  ],
  singles: [
    exchangeCase("single", "m3", ["us-m3"], 5, 2401),
    exchangeCase("single", "f3", ["us-f3"], 8, 2402),
    exchangeCase("single", "kal", ["kal"], 6, 2403),
    exchangeCase("single", "slt", ["slt"], 10, 2404),
    exchangeCase("single", "f4-noisy", ["en-f4"], 6, 2405, 10),
  ],
} satisfies Record<string, DiarizationCase[]>;

const built = new Map<DiarizationCase, Dialogue>();

beforeAll(async () => {
  // Sequential: festival and espeak-ng run as child processes on a shared 2-core machine.
  for (const group of Object.values(CASES)) for (const c of group) built.set(c, await c.build());
}, 300_000);

/** Checks the detected speaker count and the DER of every case. */
function expectCases(cases: DiarizationCase[], maxDer: number): void {
  for (const c of cases) {
    const dialogue = built.get(c)!;
    const turns = diarize(dialogue.pcm);
    const { der } = diarizationErrorRate(dialogue.turns, turns);
    expect({ case: c.name, speakers: speakers(turns) }).toEqual({ case: c.name, speakers: c.speakers });
    expect(der, c.name).toBeLessThan(maxDer);
  }
}

describe("Diarizer on short exchanges", () => {
  it("gives the test cases the shape they claim: 2-3 s turns, 8-15 s for four turns", () => {
    for (const c of [...CASES.exchanges, ...CASES.mixed, ...CASES.noisy]) {
      const dialogue = built.get(c)!;
      expect(dialogue.seconds, c.name).toBeGreaterThanOrEqual(8);
      expect(dialogue.seconds, c.name).toBeLessThanOrEqual(15);
      expect(new Set(dialogue.turns.map((t) => t.speaker)).size).toBe(2);
      for (const turn of dialogue.turns) {
        expect(turn.end - turn.start, c.name).toBeGreaterThan(1.8);
        expect(turn.end - turn.start, c.name).toBeLessThan(3.2);
      }
    }
  });

  it("finds two speakers in a four-turn exchange of a male and a female voice", () => {
    expectCases(CASES.exchanges, 0.15);
  });

  it("finds three speakers in about 20 seconds", () => {
    for (const c of CASES.threes) expect(built.get(c)!.seconds, c.name).toBeLessThan(22);
    expectCases(CASES.threes, 0.15);
  });

  it("finds two speakers when a festival voice talks with an espeak-ng voice", () => {
    expectCases(CASES.mixed, 0.2);
  });

  it("finds two speakers under pink background noise at 10 dB SNR", () => {
    expectCases(CASES.noisy, 0.2);
  });

  it("keeps single-speaker clips of 10-35 s as one speaker, also in noise", () => {
    expectCases(CASES.singles, 0.15);
  });
});
