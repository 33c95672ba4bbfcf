import { describe, expect, it } from "vitest";
import type { Segment } from "../../protocol/transcription.ts";
import { wavBytes, wavDataUrl } from "../../web/src/audio/wav.ts";
import { voiceSpan } from "../../web/src/job/voice-clip.ts";

const segment = (start: number, end: number, speaker: string | null): Segment => ({
  start,
  end,
  start_fmt: "",
  end_fmt: "",
  text: "…",
  speaker,
});

describe("voiceSpan", () => {
  it("takes the speaker's longest stretch alone, joining segments under a second apart", () => {
    const segments = [
      segment(0, 1.5, "SPEAKER_00"),
      segment(1.5, 4, "SPEAKER_01"),
      segment(4.2, 6, "SPEAKER_00"),
      segment(6.5, 9, "SPEAKER_00"), // 0.5 s after: the same stretch, 4.2–9
      segment(9, 10, "SPEAKER_01"),
      segment(12, 14, "SPEAKER_00"),
    ];
    expect(voiceSpan(segments, "SPEAKER_00")).toEqual({ start: 4.2, end: 9 });
    expect(voiceSpan(segments, "SPEAKER_01")).toEqual({ start: 1.5, end: 4 });
  });

  it("cuts a long stretch to 30 s and gives nothing under 2 s of the voice", () => {
    expect(voiceSpan([segment(10, 70, "SPEAKER_00")], "SPEAKER_00")).toEqual({ start: 10, end: 40 });
    expect(voiceSpan([segment(0, 1.9, "SPEAKER_00"), segment(5, 6, "SPEAKER_00")], "SPEAKER_00")).toBeNull();
    expect(voiceSpan([segment(0, 5, "SPEAKER_00")], "SPEAKER_01")).toBeNull();
  });
});

describe("wavBytes", () => {
  it("writes 16-bit mono PCM WAV that reads back sample for sample", () => {
    const samples = Float32Array.from([0, 0.5, -0.5, 1, -1, 2]);
    const bytes = wavBytes(samples, 16_000);
    const view = new DataView(bytes.buffer);
    const text = (at: number, length: number) => new TextDecoder().decode(bytes.subarray(at, at + length));
    expect([text(0, 4), text(8, 4), text(12, 4), text(36, 4)]).toEqual(["RIFF", "WAVE", "fmt ", "data"]);
    expect(view.getUint32(4, true)).toBe(bytes.length - 8);
    expect([view.getUint16(20, true), view.getUint16(22, true), view.getUint32(24, true)]).toEqual([
      1, 1, 16_000,
    ]);
    expect(view.getUint16(34, true)).toBe(16);
    expect(view.getUint32(40, true)).toBe(samples.length * 2);
    const read = Array.from({ length: samples.length }, (_, i) => view.getInt16(44 + i * 2, true));
    // clipped to -1..1
    expect(read).toEqual([0, 16_384, -16_384, 32_767, -32_768, 32_767]);
  });

  it("becomes a data URL the API reads as audio/wav", () => {
    const url = wavDataUrl(wavBytes(new Float32Array(16_000), 16_000));
    expect(url.startsWith("data:audio/wav;base64,UklGR")).toBe(true);
    expect(Buffer.from(url.split(",")[1] ?? "", "base64").length).toBe(32_044);
  });
});
