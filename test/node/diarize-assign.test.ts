import { describe, expect, it } from "vitest";
import { assignSpeakers } from "../../inference-node/diarize/assign.ts";

const turns = [
  { start: 0, end: 4, speaker: "SPEAKER_00" },
  { start: 4, end: 9, speaker: "SPEAKER_01" },
  { start: 12, end: 15, speaker: "SPEAKER_00" },
];

describe("assignSpeakers", () => {
  it("labels each segment with the speaker it overlaps most and keeps its fields and order", () => {
    const segments = [
      { start: 3, end: 8, text: "mostly one" },
      { start: 0, end: 1, text: "zero" },
      { start: 8.5, end: 13, text: "mostly zero again" },
    ];
    expect(assignSpeakers(segments, turns)).toEqual([
      { start: 3, end: 8, text: "mostly one", speaker: "SPEAKER_01" },
      { start: 0, end: 1, text: "zero", speaker: "SPEAKER_00" },
      { start: 8.5, end: 13, text: "mostly zero again", speaker: "SPEAKER_00" },
    ]);
  });

  it("gives null without overlap, and touching ends do not overlap", () => {
    const labelled = assignSpeakers(
      [
        { start: 9, end: 12 },
        { start: 20, end: 21 },
        { start: 15, end: 16 },
      ],
      turns,
    );
    expect(labelled.map((s) => s.speaker)).toEqual([null, null, null]);
    expect(assignSpeakers([{ start: 1, end: 2 }], [])[0]!.speaker).toBeNull();
  });

  it("adds up a speaker's overlap across several turns", () => {
    const fragmented = [
      { start: 0, end: 1, speaker: "SPEAKER_00" },
      { start: 1, end: 2.5, speaker: "SPEAKER_01" },
      { start: 2.5, end: 3.5, speaker: "SPEAKER_00" },
    ];
    // SPEAKER_00: 2 s in two pieces beats SPEAKER_01: 1.5 s in one.
    expect(assignSpeakers([{ start: 0, end: 3.5 }], fragmented)[0]!.speaker).toBe("SPEAKER_00");
  });

  it("breaks exact ties towards the label that sorts first", () => {
    const tied = [
      { start: 2, end: 4, speaker: "SPEAKER_01" },
      { start: 0, end: 2, speaker: "SPEAKER_00" },
    ];
    expect(assignSpeakers([{ start: 1, end: 3 }], tied)[0]!.speaker).toBe("SPEAKER_00");
    expect(assignSpeakers([{ start: 1, end: 3 }], [...tied].reverse())[0]!.speaker).toBe("SPEAKER_00");
  });

  it("finds a long turn that starts long before the segment, among unsorted and nested turns", () => {
    const nested = [
      { start: 50, end: 51, speaker: "SPEAKER_02" },
      { start: 0, end: 100, speaker: "SPEAKER_00" },
      { start: 10, end: 11, speaker: "SPEAKER_01" },
    ];
    expect(assignSpeakers([{ start: 60, end: 70 }], nested)[0]!.speaker).toBe("SPEAKER_00");
    expect(assignSpeakers([{ start: 49, end: 52 }], nested)[0]!.speaker).toBe("SPEAKER_00");
  });
});
