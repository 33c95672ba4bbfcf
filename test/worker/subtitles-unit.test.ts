import { describe, expect, it } from "vitest";
import { LABELLED, toPlainText, toSrt, toVtt, translatedCues } from "../../protocol/subtitles.ts";
import { TranscriptionResult } from "../../protocol/transcription.ts";

/** The shared subtitle writer in its standard dialect (the OpenAI dialect's bytes: openai-formats-unit). */

const segment = (start: number, end: number, text: string, speaker: string | null = null) => ({
  start,
  end,
  start_fmt: "",
  end_fmt: "",
  text,
  speaker,
});
const result = (segments: ReturnType<typeof segment>[], translation: string | null = null) =>
  TranscriptionResult.parse({
    text: segments.map((s) => s.text.trim()).join(" "),
    raw_text: "",
    language: "vi",
    model: "whisper-base",
    duration_sec: 10,
    asr_ms: 1,
    rtf: 0.1,
    segments,
    translation,
  });

const diarized = result([
  segment(0, 1.5, " Hello <there> & you", "SPEAKER_00"),
  segment(1.5, 3661.25, " Second\n\n line", "SPEAKER_01"),
  segment(3661.25, 3662, "   ", "SPEAKER_01"),
]);

describe("subtitle writer, standard dialect", () => {
  it("srt: SPEAKER: prefixes, blank cues left out, blank lines in a cue closed up", () => {
    expect(toSrt(diarized.segments, LABELLED)).toBe(
      "1\n00:00:00,000 --> 00:00:01,500\nSPEAKER_00: Hello <there> & you\n\n" +
        "2\n00:00:01,500 --> 01:01:01,250\nSPEAKER_01: Second\n line\n\n",
    );
  });

  it("vtt: voice tags, text and names escaped", () => {
    const named = {
      ...LABELLED,
      speakerName: (label: string) => (label === "SPEAKER_00" ? "A <&>\nB" : label),
    };
    expect(toVtt(diarized.segments, named)).toBe(
      "WEBVTT\n\n00:00:00.000 --> 00:00:01.500\n<v A &lt;&amp;&gt; B>Hello &lt;there&gt; &amp; you\n\n" +
        "00:00:01.500 --> 01:01:01.250\n<v SPEAKER_01>Second\n line\n\n",
    );
  });

  it("no speaker marks when speakers are off or the segment has none", () => {
    expect(toSrt(diarized.segments.slice(0, 1), { ...LABELLED, speakerName: null })).toBe(
      "1\n00:00:00,000 --> 00:00:01,500\nHello <there> & you\n\n",
    );
    expect(toVtt([segment(0, 1, "x")], LABELLED)).toBe("WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nx\n\n");
  });

  it("plain text: one line per cue with its speaker, or the whole text without cues", () => {
    expect(toPlainText(diarized.segments, diarized.text, LABELLED)).toBe(
      "SPEAKER_00: Hello <there> & you\nSPEAKER_01: Second\n line\n",
    );
    expect(toPlainText([], "  just text ", LABELLED)).toBe("just text\n");
  });
});

describe("translated cues", () => {
  it("times each sentence where the same share of the transcript is spoken", () => {
    // 10 + 10 characters spoken over [0,2] and [5,9]; two sentences of equal length
    const twoSegments = result(
      [segment(0, 2, "aaaaaaaaaa", "SPEAKER_00"), segment(5, 9, "bbbbbbbbbb", "SPEAKER_01")],
      "First one.  Second 12!",
    );
    expect(translatedCues(twoSegments)).toEqual([
      { start: 0, end: 2, text: "First one.", speaker: null },
      { start: 5, end: 9, text: "Second 12!", speaker: null },
    ]);
  });

  it("places a sentence inside a segment pro rata", () => {
    const one = result([segment(10, 20, "x".repeat(40))], "Ab. Cdefgh.");
    const cues = translatedCues(one);
    expect(cues.map((c) => c.text)).toEqual(["Ab.", "Cdefgh."]);
    expect(cues[0]?.start).toBe(10);
    expect(cues[0]?.end).toBeCloseTo(13, 9);
    expect(cues[1]?.start).toBeCloseTo(13, 9);
    expect(cues[1]?.end).toBe(20);
  });

  it("spans the whole duration without segments, and is empty without a translation", () => {
    expect(translatedCues(result([], "Only text"))).toEqual([
      { start: 0, end: 10, text: "Only text", speaker: null },
    ]);
    expect(translatedCues(result([segment(0, 1, "x")]))).toEqual([]);
    expect(translatedCues(result([segment(0, 1, "x")], "   "))).toEqual([]);
  });
});
