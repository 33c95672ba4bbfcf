import { describe, expect, it } from "vitest";
import {
  type BuildResultInput,
  buildTranscriptionResult,
  speakerByOverlap,
} from "../../inference-node/postprocess/build-result.ts";
import { cleanTranscript, type DecodedSegment } from "../../protocol/postprocess/clean-transcript.ts";
import { TranscriptionResult } from "../../protocol/transcription.ts";

const seg = (
  start: number,
  end: number,
  text: string,
  noSpeechProb = 0.02,
  avgLogprob = -0.3,
): DecodedSegment => ({
  start,
  end,
  text,
  noSpeechProb,
  avgLogprob,
});

/** A Vietnamese news clip as whisper base decodes it: music intro, a loop, a silent-tail hallucination. */
const vietnamese: DecodedSegment[] = [
  seg(0, 3.2, " [Âm nhạc]", 0.71, -0.9),
  seg(3.2, 7.84, " xin chào quý vị ,hôm nay chúng ta nói về giá xăng."),
  seg(7.84, 11.5, " giá xăng tăng tăng tăng tăng ba lần"),
  seg(11.5, 14, " trong tháng này"),
  seg(14, 16, " Cảm ơn quý vị."),
  seg(16, 18, " Cảm ơn quý vị."),
  seg(18, 20, " Cảm ơn quý vị."),
  seg(3600, 3602.5, " Hãy subscribe cho kênh Ghiền Mì Gõ Để không bỏ lỡ những video hấp dẫn", 0.88, -0.6),
];

const base: BuildResultInput = {
  segments: vietnamese,
  language: "vi",
  model: "whisper-base",
  durationSec: 3603,
  timings: { downloadMs: 250, asrMs: 90_000, diarizeMs: 120_000, postMs: 15 },
};

describe("buildTranscriptionResult", () => {
  it("produces a valid TranscriptionResult with cleaned text and verbatim raw_text", () => {
    const result = buildTranscriptionResult(base);
    expect(TranscriptionResult.parse(result)).toEqual(result);
    expect(result.raw_text).toBe(vietnamese.map((s) => s.text.trim()).join(" "));
    expect(result.text).toBe(
      "Xin chào quý vị, hôm nay chúng ta nói về giá xăng. Giá xăng tăng ba lần trong tháng này Cảm ơn quý vị.",
    );
    expect(result.language).toBe("Vietnamese");
    expect(result.model).toBe("whisper-base");
    expect(result.audio_url).toBeNull();
    expect(result.speakers_pending).toBe(false);
  });

  it("drops emptied segments, merges loops and formats times", () => {
    const result = buildTranscriptionResult(base);
    expect(result.segments).toEqual([
      {
        start: 3.2,
        end: 7.84,
        start_fmt: "00:03.200",
        end_fmt: "00:07.840",
        text: "Xin chào quý vị, hôm nay chúng ta nói về giá xăng.",
        speaker: null,
      },
      {
        start: 7.84,
        end: 11.5,
        start_fmt: "00:07.840",
        end_fmt: "00:11.500",
        text: "Giá xăng tăng ba lần",
        speaker: null,
      },
      {
        start: 11.5,
        end: 14,
        start_fmt: "00:11.500",
        end_fmt: "00:14.000",
        text: "trong tháng này",
        speaker: null,
      },
      {
        start: 14,
        end: 20,
        start_fmt: "00:14.000",
        end_fmt: "00:20.000",
        text: "Cảm ơn quý vị.",
        speaker: null,
      },
    ]);
    expect(result.segment_count).toBe(4);
    expect(result.has_timestamps).toBe(true);
  });

  it("computes total_ms = download + max(asr, diarize) + post, and rtf = asr/1000/duration", () => {
    const result = buildTranscriptionResult(base);
    expect(result.asr_ms).toBe(90_000);
    expect(result.diarize_ms).toBe(120_000);
    expect(result.total_ms).toBe(250 + 120_000 + 15);
    expect(result.rtf).toBeCloseTo(90 / 3603, 12);

    const asrBound = buildTranscriptionResult({
      ...base,
      timings: { downloadMs: 100, decodeMs: 40, asrMs: 5000, diarizeMs: 2000, postMs: 10 },
    });
    expect(asrBound.total_ms).toBe(100 + 40 + 5000 + 10);

    const noDiarize = buildTranscriptionResult({ ...base, timings: { downloadMs: 1, asrMs: 2, postMs: 3 } });
    expect(noDiarize.diarize_ms).toBe(0);
    expect(noDiarize.total_ms).toBe(6);
  });

  it("reports rtf 0 for a zero-length clip and an empty result for no segments", () => {
    const result = buildTranscriptionResult({ ...base, segments: [], durationSec: 0 });
    expect(TranscriptionResult.parse(result)).toEqual(result);
    expect(result).toMatchObject({
      text: "",
      raw_text: "",
      rtf: 0,
      segments: [],
      segment_count: 0,
      has_timestamps: false,
      speaker_turns: null,
    });
  });

  it("keeps a real 'Thank you' and drops the one over silence", () => {
    const result = buildTranscriptionResult({
      ...base,
      language: "en",
      segments: [
        seg(0, 2, " So that's all from me."),
        seg(2, 3, " Thank you."),
        seg(30, 32, " Thank you.", 0.91, -0.7),
      ],
    });
    expect(result.text).toBe("So that's all from me. Thank you.");
    expect(result.raw_text).toBe("So that's all from me. Thank you. Thank you.");
    expect(result.language).toBe("English");
  });

  it("does not capitalize English or a Vietnamese segment that continues a sentence, but its proper nouns", () => {
    const en = buildTranscriptionResult({ ...base, language: "en", segments: [seg(0, 1, " and then. so")] });
    expect(en.text).toBe("and then. so");
    const vi = buildTranscriptionResult({
      ...base,
      segments: [seg(0, 1, " chúng ta sẽ"), seg(1, 2, " đi đà nẵng.")],
    });
    expect(vi.segments.map((s) => s.text)).toEqual(["Chúng ta sẽ", "đi Đà Nẵng."]);
    expect(vi.raw_text).toBe("chúng ta sẽ đi đà nẵng.");
  });

  it("joins Chinese segments without spaces", () => {
    const zh = buildTranscriptionResult({
      ...base,
      language: "zh",
      segments: [seg(0, 1, "大家好。"), seg(1, 2, "今天我们谈谈天气。"), seg(2, 3, "谢谢观看", 0.8)],
    });
    expect(zh.text).toBe("大家好。今天我们谈谈天气。");
    expect(zh.raw_text).toBe("大家好。今天我们谈谈天气。谢谢观看");
    expect(zh.language).toBe("Chinese");
  });

  it("labels segments by longest overlap with the speaker turns", () => {
    const turns = [
      { start: 0, end: 5, speaker: "SPEAKER_00" },
      { start: 5, end: 12, speaker: "SPEAKER_01" },
    ];
    const result = buildTranscriptionResult({
      ...base,
      segments: [seg(0, 4, " một"), seg(4, 9, " hai"), seg(20, 22, " ba")],
      speakerTurns: turns,
    });
    expect(result.segments.map((s) => s.speaker)).toEqual(["SPEAKER_00", "SPEAKER_01", null]);
    expect(result.speaker_turns).toEqual(turns);
    expect(TranscriptionResult.parse(result).speaker_turns).toEqual(turns);
  });

  it("carries an enrolled speaker's name beside the label, on its turns and its segments", () => {
    const turns = [
      { start: 0, end: 5, speaker: "SPEAKER_00", speaker_name: "agent" },
      { start: 5, end: 12, speaker: "SPEAKER_01" },
    ];
    const result = buildTranscriptionResult({
      ...base,
      segments: [seg(0, 4, " một"), seg(4, 9, " hai")],
      speakerTurns: turns,
    });
    const parsed = TranscriptionResult.parse(result);
    expect(parsed.segments.map((s) => [s.speaker, s.speaker_name])).toEqual([
      ["SPEAKER_00", "agent"],
      ["SPEAKER_01", undefined],
    ]);
    expect(parsed.speaker_turns).toEqual(turns);
  });

  it("prefers labels given on segments, then an assignment function", () => {
    const turns = [{ start: 0, end: 10, speaker: "SPEAKER_00" }];
    const given = buildTranscriptionResult({
      ...base,
      segments: [{ ...seg(0, 1, " a"), speaker: "SPEAKER_07" }, seg(1, 2, " b")],
      speakerTurns: turns,
      assignSpeaker: (start) => (start < 1 ? "SPEAKER_09" : "SPEAKER_03"),
    });
    expect(given.segments.map((s) => s.speaker)).toEqual(["SPEAKER_07", "SPEAKER_03"]);
  });

  it("names the language in Title case, from codes with regions too, and keeps unknown input", () => {
    expect(buildTranscriptionResult({ ...base, language: "ja" }).language).toBe("Japanese");
    expect(buildTranscriptionResult({ ...base, language: "zh-CN" }).language).toBe("Chinese");
    expect(buildTranscriptionResult({ ...base, language: "ht" }).language).toBe("Haitian Creole");
    expect(buildTranscriptionResult({ ...base, language: "xx" }).language).toBe("xx");
  });

  it("passes the translation through", () => {
    expect(buildTranscriptionResult({ ...base, translation: "Hello everyone." }).translation).toBe(
      "Hello everyone.",
    );
    expect(buildTranscriptionResult(base).translation).toBeNull();
  });
});

describe("cleanTranscript", () => {
  it("gives the same text the result carries, for translating before building", () => {
    const cleaned = cleanTranscript(base.segments, "vi");
    expect(cleaned.text).toBe(buildTranscriptionResult(base).text);
    expect(cleaned.rawText).toBe(buildTranscriptionResult(base).raw_text);
  });

  it("honours options", () => {
    const segs = [seg(0, 1, " Thank you.", 0.5)];
    expect(cleanTranscript(segs, "en").text).toBe("Thank you.");
    expect(cleanTranscript(segs, "en", { noSpeechThreshold: 0.4 }).text).toBe("");
  });
});

describe("speakerByOverlap", () => {
  it("picks the longest overlap and null without any", () => {
    const turns = [
      { start: 0, end: 1.5, speaker: "SPEAKER_00" },
      { start: 1.5, end: 4, speaker: "SPEAKER_01" },
    ];
    expect(speakerByOverlap(1, 3, turns)).toBe("SPEAKER_01");
    expect(speakerByOverlap(0, 1.4, turns)).toBe("SPEAKER_00");
    expect(speakerByOverlap(5, 6, turns)).toBeNull();
    expect(speakerByOverlap(1, 3, [])).toBeNull();
  });
});
