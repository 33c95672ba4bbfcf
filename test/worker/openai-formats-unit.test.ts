import { describe, expect, it } from "vitest";
import { timecode } from "../../protocol/subtitles.ts";
import { TranscriptionResult } from "../../protocol/transcription.ts";
import type { TranscriptionDetail } from "../../protocol/transcription-detail.ts";
import {
  renderTranscript,
  speakerLetters,
  toDiarizedJson,
  toJson,
  toText,
  toVerboseJson,
} from "../../worker/openai/formats.ts";
import { OpenAITranscriptionDiarized, OpenAITranscriptionVerbose } from "../../worker/schemas/openai.ts";

const result = TranscriptionResult.parse({
  text: "Hello world. Second line",
  raw_text: "Hello world. Second line",
  language: "English",
  model: "whisper-base",
  duration_sec: 3725.5,
  asr_ms: 900,
  rtf: 0.0002,
  segments: [
    {
      start: 0,
      end: 2.5,
      start_fmt: "00:00.000",
      end_fmt: "00:02.500",
      text: "Hello world.",
      speaker: "SPEAKER_00",
    },
    {
      start: 2.5,
      end: 3725.0419,
      start_fmt: "00:02.500",
      end_fmt: "01:02:05.042",
      text: "Second line",
      speaker: "SPEAKER_01",
    },
  ],
});
const undiarized = { ...result, segments: result.segments.map((s) => ({ ...s, speaker: null })) };

const detail: TranscriptionDetail = {
  segments: [
    {
      seek: 0,
      tokens: [2425, 1002, 13],
      temperature: 0,
      avg_logprob: -0.25,
      compression_ratio: 0.9,
      no_speech_prob: 0.01,
    },
    {
      seek: 300000,
      tokens: [7851, 1622],
      temperature: 0,
      avg_logprob: -0.5,
      compression_ratio: 0.8,
      no_speech_prob: 0.2,
    },
  ],
  words: [
    { word: "Hello", start: 0.1, end: 0.5004 },
    { word: "world", start: 0.6, end: 1.2 },
    { word: "Second", start: 2.6, end: 3 },
    { word: "line", start: 3, end: 3.4 },
  ],
  logprobs: [
    { token: " Hello", logprob: -0.1, bytes: [32, 72, 101, 108, 108, 111] },
    { token: " world", logprob: -0.5, bytes: [32, 119, 111, 114, 108, 100] },
  ],
};

const openai = (format: "srt" | "vtt", of: TranscriptionResult) =>
  renderTranscript(format, of, null, { task: "transcribe", words: false }).body;

describe("timecode", () => {
  it("prints HH:MM:SS with the separator, rounding to the millisecond with carries", () => {
    expect(timecode(0, ",")).toBe("00:00:00,000");
    expect(timecode(3725.0419, ",")).toBe("01:02:05,042");
    expect(timecode(59.9996, ".")).toBe("00:01:00.000");
    expect(timecode(36_000, ".")).toBe("10:00:00.000");
    expect(timecode(-1, ".")).toBe("00:00:00.000");
    expect(timecode(Number.NaN, ",")).toBe("00:00:00,000");
  });
});

describe("OpenAI response formats", () => {
  it("json is the text and, for a transcription, the duration usage rounded up; text adds OpenAI's newline", () => {
    expect(toJson(result, "transcribe")).toEqual({
      text: "Hello world. Second line",
      usage: { type: "duration", seconds: 3726 },
    });
    expect(toJson({ ...result, duration_sec: 4 }, "transcribe").usage).toEqual({
      type: "duration",
      seconds: 4,
    });
    expect(toJson(result, "translate")).toEqual({ text: "Hello world. Second line" });
    expect(toText(result)).toBe("Hello world. Second line\n");
  });

  it("diarized_json is OpenAI's TranscriptionDiarized, speakers lettered by first appearance", () => {
    const swapped = {
      ...result,
      segments: [
        { ...result.segments[0]!, speaker: "SPEAKER_01", text: "  Hello world. " },
        { ...result.segments[1]!, speaker: "SPEAKER_00" },
      ],
    };
    const diarized = toDiarizedJson(swapped);
    expect(OpenAITranscriptionDiarized.strict().parse(diarized)).toEqual(diarized);
    expect(diarized).toEqual({
      task: "transcribe",
      duration: 3725.5,
      text: "Hello world. Second line",
      segments: [
        {
          type: "transcript.text.segment",
          id: "seg_0",
          start: 0,
          end: 2.5,
          text: "Hello world.",
          speaker: "A",
        },
        {
          type: "transcript.text.segment",
          id: "seg_1",
          start: 2.5,
          end: 3725.042,
          text: "Second line",
          speaker: "B",
        },
      ],
      usage: { type: "duration", seconds: 3726 },
    });
    expect(toDiarizedJson(undiarized).segments.map((s) => s.speaker)).toEqual(["A", "A"]);
    expect(
      JSON.parse(renderTranscript("diarized_json", swapped, null, { task: "transcribe", words: false }).body),
    ).toEqual(diarized);
  });

  it("diarized_json names an enrolled speaker's segments by speaker_name, the others by letter", () => {
    const named = {
      ...result,
      segments: [
        { ...result.segments[0]!, speaker: "SPEAKER_00", speaker_name: "A" },
        { ...result.segments[1]!, speaker: "SPEAKER_01" },
      ],
    };
    expect(toDiarizedJson(named).segments.map((s) => s.speaker)).toEqual(["A", "B"]);
    const agent = {
      ...named,
      segments: [{ ...named.segments[0]!, speaker_name: "agent" }, named.segments[1]!],
    };
    expect(toDiarizedJson(agent).segments.map((s) => s.speaker)).toEqual(["agent", "A"]);
  });

  it("speaker letters: unlabelled segments keep the speaker before them; past Z come AA, AB", () => {
    expect(speakerLetters([null, "SPEAKER_03", null, "SPEAKER_00", "SPEAKER_03"])).toEqual([
      "A",
      "A",
      "A",
      "B",
      "A",
    ]);
    const many = speakerLetters(Array.from({ length: 28 }, (_, i) => `SPEAKER_${i}`));
    expect(many.slice(24)).toEqual(["Y", "Z", "AA", "AB"]);
    expect(speakerLetters([])).toEqual([]);
    // a known speaker's name (the node put it in place of the label) stays; letters skip the names
    expect(speakerLetters([null, "B", "SPEAKER_01", "agent", "SPEAKER_00", null])).toEqual([
      "A",
      "B",
      "A",
      "agent",
      "C",
      "C",
    ]);
  });

  it("srt numbers cues from 1 with comma milliseconds and a blank line after each", () => {
    expect(openai("srt", result)).toBe(
      "1\n00:00:00,000 --> 00:00:02,500\nHello world.\n\n2\n00:00:02,500 --> 01:02:05,042\nSecond line\n\n",
    );
    expect(openai("srt", { ...result, segments: [] })).toBe("");
  });

  it("vtt has the WEBVTT header, dot milliseconds and voice tags only when diarized", () => {
    expect(openai("vtt", result)).toBe(
      "WEBVTT\n\n00:00:00.000 --> 00:00:02.500\n<v SPEAKER_00>Hello world.\n\n" +
        "00:00:02.500 --> 01:02:05.042\n<v SPEAKER_01>Second line\n\n",
    );
    expect(openai("vtt", undiarized)).toBe(
      "WEBVTT\n\n00:00:00.000 --> 00:00:02.500\nHello world.\n\n00:00:02.500 --> 01:02:05.042\nSecond line\n\n",
    );
  });

  it("verbose_json carries OpenAI's fields from the detail, words only when asked", () => {
    const verbose = toVerboseJson(result, detail, { task: "transcribe", words: true });
    expect(OpenAITranscriptionVerbose.strict().parse(verbose)).toEqual(verbose);
    expect(verbose).toMatchObject({
      task: "transcribe",
      language: "english",
      duration: 3725.5,
      text: result.text,
    });
    expect(verbose.segments[0]).toEqual({
      id: 0,
      seek: 0,
      start: 0,
      end: 2.5,
      text: " Hello world.",
      tokens: [2425, 1002, 13],
      temperature: 0,
      avg_logprob: -0.25,
      compression_ratio: 0.9,
      no_speech_prob: 0.01,
    });
    expect(verbose.segments[1]).toMatchObject({ id: 1, seek: 300000, end: 3725.042, text: " Second line" });
    expect(verbose.words?.[0]).toEqual({ word: "Hello", start: 0.1, end: 0.5 });
    expect(verbose.words).toHaveLength(4);
    expect(verbose.usage).toEqual({ type: "duration", seconds: 3726 });
    expect(toVerboseJson(result, detail, { task: "transcribe", words: false })).not.toHaveProperty("words");
  });

  it("verbose_json without detail shows zeros and words spread over each segment", () => {
    const verbose = toVerboseJson(result, null, { task: "translate", words: true });
    expect(verbose.task).toBe("translate");
    expect(verbose).not.toHaveProperty("usage");
    expect(verbose.segments[1]).toMatchObject({ seek: 0, tokens: [], avg_logprob: 0, no_speech_prob: 0 });
    expect(verbose.words?.map((w) => w.word)).toEqual(["Hello", "world", "Second", "line"]);
    expect(verbose.words?.[0]).toEqual({ word: "Hello", start: 0, end: 1.25 });
    expect(verbose.words?.[1]).toEqual({ word: "world", start: 1.25, end: 2.5 });
  });

  it("keeps no leading space before text in a script written without spaces", () => {
    const zh = { ...result, language: "Chinese", segments: [{ ...result.segments[0]!, text: "你好" }] };
    expect(toVerboseJson(zh, null, { task: "transcribe", words: false }).segments[0]?.text).toBe("你好");
    expect(toVerboseJson(zh, null, { task: "transcribe", words: false }).language).toBe("chinese");
  });

  it("renders each format with its content type", () => {
    const render = (format: Parameters<typeof renderTranscript>[0]) =>
      renderTranscript(format, result, detail, { task: "transcribe", words: false });
    expect(render("json")).toEqual({
      body: '{"text":"Hello world. Second line","usage":{"type":"duration","seconds":3726}}',
      contentType: "application/json",
    });
    expect(render("diarized_json").contentType).toBe("application/json");
    expect(JSON.parse(render("verbose_json").body)).toMatchObject({ language: "english" });
    for (const format of ["text", "srt", "vtt"] as const) {
      expect(render(format).contentType).toBe("text/plain; charset=utf-8");
    }
    expect(render("vtt").body.startsWith("WEBVTT\n\n")).toBe(true);
  });
});

/**
 * The OpenAI route's text, srt and vtt bytes, pinned through renderTranscript (the route's entry) so a
 * change to the shared subtitle writer behind it cannot alter them.
 */
describe("OpenAI text/srt/vtt goldens", () => {
  const segment = (start: number, end: number, text: string, speaker: string | null = null) => ({
    start,
    end,
    start_fmt: "",
    end_fmt: "",
    text,
    speaker,
  });
  const golden = TranscriptionResult.parse({
    text: "  First line\nsecond line R&D <b>x</b>  ",
    raw_text: "",
    language: "English",
    model: "whisper-base",
    duration_sec: 36_001,
    asr_ms: 1,
    rtf: 0.1,
    segments: [
      segment(0.0005, 59.9995, "  First line\nsecond line  ", "SPEAKER_00"),
      segment(59.9994, 3599.9996, ""),
      segment(3607.25, 35_999.99951, "R&D <b>x</b> -->", "SPEAKER_01"),
      segment(-3, -1, "   ", "SPEAKER_00"),
    ],
  });
  const render = (format: "text" | "srt" | "vtt") =>
    renderTranscript(format, golden, null, { task: "transcribe", words: false }).body;

  it("text is the transcript as stored plus one newline", () => {
    expect(render("text")).toBe("  First line\nsecond line R&D <b>x</b>  \n");
  });

  it("srt: no speaker marks, blank cues kept, text raw, rounding carries into the hours", () => {
    expect(render("srt")).toBe(
      "1\n00:00:00,001 --> 00:01:00,000\nFirst line\nsecond line\n\n" +
        "2\n00:00:59,999 --> 01:00:00,000\n\n\n" +
        "3\n01:00:07,250 --> 10:00:00,000\nR&D <b>x</b> -->\n\n" +
        "4\n00:00:00,000 --> 00:00:00,000\n\n\n",
    );
  });

  it("vtt: raw speaker labels as voice tags, text unescaped, blank cues kept", () => {
    expect(render("vtt")).toBe(
      "WEBVTT\n\n" +
        "00:00:00.001 --> 00:01:00.000\n<v SPEAKER_00>First line\nsecond line\n\n" +
        "00:00:59.999 --> 01:00:00.000\n\n\n" +
        "01:00:07.250 --> 10:00:00.000\n<v SPEAKER_01>R&D <b>x</b> -->\n\n" +
        "00:00:00.000 --> 00:00:00.000\n<v SPEAKER_00>\n\n",
    );
  });

  it("an empty result is the bare header and empty bodies", () => {
    const empty = { ...golden, text: "", segments: [] };
    const body = (format: "text" | "srt" | "vtt") =>
      renderTranscript(format, empty, null, { task: "transcribe", words: false }).body;
    expect([body("text"), body("srt"), body("vtt")]).toEqual(["\n", "", "WEBVTT\n\n"]);
  });
});
