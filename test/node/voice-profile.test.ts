import { describe, expect, it } from "vitest";
import { Diarizer } from "../../inference-node/diarize/diarizer.ts";
import type { Evidence } from "../../inference-node/diarize/evidence.ts";
import {
  KNOWN_SPEAKER_THRESHOLD,
  nameSpeakers,
  profileDistance,
} from "../../inference-node/diarize/voice-profile.ts";
import { ReferenceRecorder, type VoiceReference } from "../../inference-node/diarize/voice-reference.ts";
import { nameTurns } from "../../inference-node/pipeline/known-speakers.ts";
import { buildExchange, synthesize } from "../helpers/dialogue.ts";
import { byLabel } from "../helpers/diarize-sets.ts";

/** A reference whose profile is the same whatever the noise. */
const fixed = (profile: Evidence): VoiceReference => ({ profileIn: () => profile });

/** A one-feature profile of the given block values. */
const profile = (...values: number[]): Evidence => ({
  n: Float64Array.of(values.length),
  sum: Float64Array.of(values.reduce((a, b) => a + b, 0)),
  sq: Float64Array.of(values.reduce((a, b) => a + b * b, 0)),
});

describe("known speaker naming", () => {
  it("measures a same-voice pair near 0 and a distinct pair far off, whatever the amount of speech", () => {
    const voice = profile(1, 2, 1, 2);
    expect(profileDistance(voice, profile(1, 2, 1, 2, 1, 2, 1, 2))).toBeCloseTo(0);
    expect(profileDistance(voice, profile(5, 6, 5, 6))).toBeGreaterThan(10);
    expect(profileDistance(voice, profile(1))).toBe(Number.POSITIVE_INFINITY);
  });

  it("gives each name to at most one cluster, best match first, and leaves far clusters unnamed", () => {
    const clusters = new Map([
      ["SPEAKER_00", profile(1, 2, 1, 2)],
      ["SPEAKER_01", profile(1.2, 2.2, 1.2, 2.2)],
      ["SPEAKER_02", profile(9, 10, 9, 10)],
    ]);
    const names = nameSpeakers(
      { speakers: clusters, noise: null },
      [{ name: "agent", reference: fixed(profile(1.2, 2.2, 1.2, 2.2)) }],
      1,
    );
    expect([...names]).toEqual([["SPEAKER_01", "agent"]]);
  });

  it("renames a compatible call's match, and puts an enrolled voice's name beside the label", () => {
    const clusters = new Map([
      ["SPEAKER_00", profile(1, 2, 1, 2)],
      ["SPEAKER_01", profile(9, 10, 9, 10)],
    ]);
    const turns = [
      { start: 0, end: 2, speaker: "SPEAKER_00" },
      { start: 2, end: 4, speaker: "SPEAKER_01" },
    ];
    const voice = { name: "agent", reference: fixed(profile(1, 2, 1, 2)) };
    const call = { speakers: clusters, noise: null };
    expect(nameTurns(turns, call, [{ ...voice, enrolled: false }])).toEqual([
      { start: 0, end: 2, speaker: "agent" },
      { start: 2, end: 4, speaker: "SPEAKER_01" },
    ]);
    expect(nameTurns(turns, call, [{ ...voice, enrolled: true }])).toEqual([
      { start: 0, end: 2, speaker: "SPEAKER_00", speaker_name: "agent" },
      { start: 2, end: 4, speaker: "SPEAKER_01" },
    ]);
  });

  it("matches a clean reference to its own voice in a call under pink noise at 10 dB SNR", async () => {
    // ked and kal are two male festival diphone voices, the pair closest in pitch
    const line = (label: string, text: string) => ({ voice: byLabel(label), text, pause: 0.6 });
    const noisyCall = async (label: string) => {
      const call = await buildExchange(
        [
          line(label, "Did you get my message about Friday?"),
          line(label, "Can we move the meeting to ten?"),
          line(label, "I will send the numbers after lunch."),
        ],
        { seed: 5, noiseSnrDb: 10 },
      );
      const diarizer = new Diarizer({ numSpeakers: 1 });
      diarizer.push(call.pcm);
      const profiles = diarizer.speakerProfiles();
      return { noise: profiles.noise, speaker: [...profiles.speakers.values()][0]! };
    };
    const recorder = new ReferenceRecorder();
    const voice = byLabel("ked");
    for (const text of [
      "My garden is full of yellow roses this summer.",
      "The library closes early on public holidays.",
    ]) {
      recorder.push((await synthesize(text, voice)).map((x) => x * voice.gain));
    }
    const reference = recorder.finish()!;
    const [own, other] = [await noisyCall("ked"), await noisyCall("kal")];
    expect(own.noise).not.toBeNull();
    const ownDistance = profileDistance(own.speaker, reference.profileIn(own.noise));
    // as the call hears it, the reference is its own voice's, and not the other voice's
    expect(ownDistance).toBeLessThanOrEqual(KNOWN_SPEAKER_THRESHOLD);
    expect(profileDistance(other.speaker, reference.profileIn(other.noise))).toBeGreaterThan(2 * ownDistance);
    // the clean reference as recorded is not: the noise moves the call's cepstra
    expect(profileDistance(own.speaker, reference.profileIn(null))).toBeGreaterThan(KNOWN_SPEAKER_THRESHOLD);
  }, 60_000);
});
