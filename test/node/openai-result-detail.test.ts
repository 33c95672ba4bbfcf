import { describe, expect, it } from "vitest";
import type { DetailedSegment } from "../../inference-node/pipeline/decode-stream.ts";
import { assign, buildDetail } from "../../inference-node/pipeline/result-detail.ts";
import { buildTranscriptionResult } from "../../inference-node/postprocess/build-result.ts";
import { DetailedTranscriptionResult } from "../../protocol/transcription-detail.ts";

/** The decoder detail an interactive task completes with, built from whisper's segments. */

function decoded(
  start: number,
  end: number,
  text: string,
  extra: Partial<DetailedSegment> = {},
): DetailedSegment {
  return {
    start,
    end,
    text,
    noSpeechProb: 0.05,
    avgLogprob: -0.4,
    seek: Math.floor(start / 30) * 3000,
    tokenIds: [100 + Math.round(start)],
    timedTokens: [],
    tokenLogprobs: [{ token: text, logprob: -0.25 - start, bytes: [...Buffer.from(text, "utf8")] }],
    ...extra,
  };
}

const timings = { downloadMs: 1, asrMs: 10, postMs: 1 };

describe("assign", () => {
  it("maps cleaned segments to the decoded ones they came from, skipping dropped ones", () => {
    const sources = [
      decoded(0, 2, " a"),
      decoded(2, 3, " dropped"),
      decoded(3, 4, " b"),
      decoded(4, 5, " b"),
    ];
    // The cleaning dropped [2,3] and folded the repeat at 4 into the segment at 3.
    const groups = assign(
      [
        { start: 0, end: 2 },
        { start: 3, end: 5 },
      ],
      sources,
    );
    expect(groups.map((g) => g.map((s) => s.start))).toEqual([[0], [3, 4]]);
  });
});

describe("buildDetail", () => {
  it("gives one entry per result segment with tokens, scores and window seek", () => {
    const sources = [
      decoded(0, 2.5, " Hello world.", { tokenIds: [1, 2, 3], avgLogprob: -0.2, noSpeechProb: 0.01 }),
      decoded(31, 33, " Second line", { tokenIds: [4, 5], avgLogprob: -0.5, seek: 3100, noSpeechProb: 0.3 }),
    ];
    const result = buildTranscriptionResult({
      segments: sources,
      language: "en",
      model: "whisper-base",
      durationSec: 33,
      timings,
    });
    const detail = buildDetail(result.segments, sources, { words: false, temperature: 0 });
    expect(detail.words).toBeNull();
    expect(detail.segments).toHaveLength(2);
    expect(detail.segments[0]).toMatchObject({
      seek: 0,
      tokens: [1, 2, 3],
      avg_logprob: expect.closeTo(-0.2, 10),
      no_speech_prob: 0.01,
    });
    expect(detail.segments[1]).toMatchObject({
      seek: 3100,
      tokens: [4, 5],
      avg_logprob: expect.closeTo(-0.5, 10),
      temperature: 0,
    });
    expect(detail.segments[0]?.compression_ratio).toBeGreaterThan(0);
    expect(DetailedTranscriptionResult.safeParse({ ...result, detail }).success).toBe(true);
  });

  it("lists every result segment's tokens with logprob and bytes only when logprobs are asked for", () => {
    const sources = [
      decoded(0, 2, " Xin", {
        tokenLogprobs: [
          { token: " Xin", logprob: -0.1, bytes: [32, 88, 105, 110] },
          // "à" split across two tokens: the text of each half is not valid UTF-8, the bytes are
          { token: "\ufffd", logprob: -0.3, bytes: [0xc3] },
          { token: "\ufffd", logprob: -0.2, bytes: [0xa0] },
        ],
      }),
      decoded(2, 3, " chào", { tokenLogprobs: [{ token: " chào", logprob: -0.4, bytes: [32, 99] }] }),
    ];
    const result = buildTranscriptionResult({
      segments: sources,
      language: "vi",
      model: "whisper-base",
      durationSec: 3,
      timings,
    });
    expect(buildDetail(result.segments, sources, { words: false, temperature: 0 }).logprobs).toBeNull();
    const detail = buildDetail(result.segments, sources, { words: false, temperature: 0, logprobs: true });
    expect(detail.logprobs?.map((t) => t.logprob)).toEqual([-0.1, -0.3, -0.2, -0.4]);
    expect(Buffer.from(detail.logprobs?.slice(1, 3).flatMap((t) => t.bytes) ?? []).toString("utf8")).toBe(
      "à",
    );
    expect(DetailedTranscriptionResult.safeParse({ ...result, detail }).success).toBe(true);
  });

  it("times the words of the cleaned text from token timestamps", () => {
    const sources = [
      decoded(10, 12, " xin chào [Âm nhạc]", {
        timedTokens: [
          { text: " xin", start: 10.1, end: 10.4 },
          { text: " ch", start: 10.5, end: 10.7 },
          { text: "ào", start: 10.7, end: 11 },
          { text: " [", start: 11, end: 11.2 },
          { text: "Âm nhạc]", start: 11.2, end: 12 },
        ],
      }),
    ];
    const result = buildTranscriptionResult({
      segments: sources,
      language: "vi",
      model: "whisper-base",
      durationSec: 12,
      timings,
    });
    expect(result.segments[0]?.text).toBe("Xin chào");
    const detail = buildDetail(result.segments, sources, { words: true, temperature: 0 });
    expect(detail.words).toEqual([
      { word: "Xin", start: 10.1, end: 10.4 },
      { word: "chào", start: 10.5, end: 11 },
    ]);
  });

  it("averages the log-probability over tokens and ignores segments without text tokens", () => {
    const sources = [
      decoded(0, 1, " a", { tokenIds: [1, 2, 3], avgLogprob: -0.3 }),
      decoded(1, 2, " a", { tokenIds: [4], avgLogprob: -0.7 }),
      decoded(2, 3, " a", { tokenIds: [], avgLogprob: Number.NaN }),
    ];
    const detail = buildDetail(
      [{ start: 0, end: 3, start_fmt: "", end_fmt: "", text: "a", speaker: null }],
      sources,
      {
        words: false,
        temperature: 0,
      },
    );
    expect(detail.segments[0]?.tokens).toEqual([1, 2, 3, 4]);
    expect(detail.segments[0]?.avg_logprob).toBeCloseTo(-0.4, 10);
  });
});
