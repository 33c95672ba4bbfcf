import { describe, expect, it } from "vitest";
import { Diarizer } from "../../inference-node/diarize/diarizer.ts";
import type { Evidence } from "../../inference-node/diarize/evidence.ts";
import { anchoredApart } from "../../inference-node/diarize/reference-anchors.ts";
import { KNOWN_SPEAKER_THRESHOLD, nameSpeakers } from "../../inference-node/diarize/voice-profile.ts";
import { ReferenceRecorder, type VoiceReference } from "../../inference-node/diarize/voice-reference.ts";
import type { SpeakerTurn } from "../../protocol/transcription.ts";
import { buildExchange, synthesize } from "../helpers/dialogue.ts";
import { byLabel } from "../helpers/diarize-sets.ts";

/** A one-feature profile of the given block values. */
const profile = (...values: number[]): Evidence => ({
  n: Float64Array.of(values.length),
  sum: Float64Array.of(values.reduce((a, b) => a + b, 0)),
  sq: Float64Array.of(values.reduce((a, b) => a + b * b, 0)),
});

const overlap = (a: SpeakerTurn, b: SpeakerTurn) =>
  Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));

async function reference(label: string, lines: string[]): Promise<VoiceReference> {
  const recorder = new ReferenceRecorder();
  const voice = byLabel(label);
  for (const text of lines) recorder.push((await synthesize(text, voice)).map((x) => x * voice.gain));
  const clip = recorder.finish();
  if (!clip) throw new Error(`no voice in ${label}'s reference`);
  return clip;
}

describe("known voices inside the clustering", () => {
  it("keeps a reference's nearest cluster apart from the clusters it would not name, and nothing else", () => {
    const agent = profile(1, 2, 1, 2);
    const clusters = new Map([
      [0, profile(1, 2, 1, 2)], // the agent: the reference's anchor
      [1, profile(1.3, 2.3, 1.3, 2.3)], // near the reference, not its nearest
      [2, profile(9, 10, 9, 10)], // far from it
      [3, profile(8, 9, 8, 9)],
    ]);
    const apart = anchoredApart([agent], 1)(clusters);
    expect([apart(0, 2), apart(2, 0), apart(0, 3)]).toEqual([true, true, true]);
    // the anchor may take a cluster the reference would name; clusters it does not hold merge freely
    expect([apart(0, 1), apart(1, 2), apart(2, 3)]).toEqual([false, false, false]);
    // a reference no cluster matches holds nothing
    const stranger = anchoredApart([profile(50, 51, 50, 51)], 1)(clusters);
    expect(stranger(0, 2)).toBe(false);
  });

  it("does not merge an unenrolled voice into an enrolled voice's cluster at 10 dB SNR", async () => {
    // the speakers bench's f3-scot-m1 case at seed +200 (pauses to 0.01 s): without the references
    // the diarizer put us-m1's turns in scot-m7's cluster, which then took scot-m7's name
    const [f3, scot, m1] = ["us-f3", "scot-m7", "us-m1"];
    const plan = [
      [f3, "The train was late again today.", 0.91],
      [scot, "I will send the numbers after lunch.", 0.49],
      [m1, "Who is booking the room upstairs?", 0.86],
      [f3, "Let us keep the call under an hour.", 0.38],
      [scot, "Did you get my message about Friday?", 1.3],
      [m1, "Yes, thanks for reminding me this morning.", 1.14],
      [scot, "Can we move the meeting to ten?", 0.77],
      [f3, "Ten o'clock works fine for me.", 1.18],
      [m1, "Should I bring the printed reports along?", 0.88],
      [f3, "Please bring two copies for the client.", 1.26],
      [scot, "The train was late again today.", 1.2],
      [m1, "I will send the numbers after lunch.", 0.35],
    ] as const;
    const call = await buildExchange(
      plan.map(([label, text, pause]) => ({ voice: byLabel(label), text, pause })),
      { seed: 226, noiseSnrDb: 10 },
    );
    const voices = [
      {
        name: f3,
        reference: await reference(f3, [
          "My garden is full of yellow roses this summer.",
          "The library closes early on public holidays.",
        ]),
      },
      {
        name: scot,
        reference: await reference(scot, [
          "The library closes early on public holidays.",
          "Seven small boats sailed across the quiet harbour.",
        ]),
      },
    ];
    /** Seconds of the unenrolled voice's speech that carry a name, and of all its speech. */
    const falseNames = (diarizer: Diarizer) => {
      const names = nameSpeakers(diarizer.speakerProfiles(), voices, KNOWN_SPEAKER_THRESHOLD);
      const intruder = call.turns.filter((turn) => turn.speaker === m1);
      const named = diarizer.finish().filter((turn) => names.has(turn.speaker));
      const time = (turns: SpeakerTurn[], within: SpeakerTurn[]) =>
        turns.reduce((sum, turn) => sum + within.reduce((n, other) => n + overlap(turn, other), 0), 0);
      return { named: time(intruder, named), total: time(intruder, intruder) };
    };
    const diarized = (references: VoiceReference[]) => {
      const diarizer = new Diarizer({ references });
      diarizer.push(call.pcm);
      return diarizer;
    };
    const without = falseNames(diarized([]));
    const anchored = falseNames(diarized(voices.map((voice) => voice.reference)));
    expect(without.named / without.total).toBeGreaterThan(0.5);
    expect(anchored.named / anchored.total).toBeLessThan(0.05);
  }, 60_000);
});
