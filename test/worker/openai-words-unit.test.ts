import { describe, expect, it } from "vitest";
import {
  alignWords,
  DetailedTranscriptionResult,
  splitWords,
  wordsFromTokens,
} from "../../protocol/transcription-detail.ts";
import { sampleResult } from "./node-client.ts";

describe("splitWords", () => {
  it("splits on whitespace, drops edge punctuation, keeps inner punctuation", () => {
    expect(splitWords(" Hello, world! Don't stop... — ok")).toEqual([
      "Hello",
      "world",
      "Don't",
      "stop",
      "ok",
    ]);
  });

  it("makes each character of a script without spaces a word", () => {
    expect(splitWords("你好，世界 ok")).toEqual(["你", "好", "世", "界", "ok"]);
    expect(splitWords("")).toEqual([]);
  });
});

describe("wordsFromTokens", () => {
  it("joins BPE pieces into words at leading spaces and drops punctuation", () => {
    expect(
      wordsFromTokens([
        { text: " Hel", start: 0, end: 0.2 },
        { text: "lo", start: 0.2, end: 0.4 },
        { text: ",", start: 0.4, end: 0.45 },
        { text: " world", start: 0.5, end: 0.9 },
        { text: ".", start: 0.9, end: 1 },
      ]),
    ).toEqual([
      { word: "Hello", start: 0, end: 0.45 },
      { word: "world", start: 0.5, end: 1 },
    ]);
  });

  it("keeps CJK tokens apart and shares a multi-character token's span", () => {
    expect(
      wordsFromTokens([
        { text: "你好", start: 1, end: 2 },
        { text: "世", start: 2, end: 2.5 },
      ]),
    ).toEqual([
      { word: "你", start: 1, end: 1.5 },
      { word: "好", start: 1.5, end: 2 },
      { word: "世", start: 2, end: 2.5 },
    ]);
  });
});

describe("alignWords", () => {
  const timed = [
    { word: "xin", start: 0.2, end: 0.5 },
    { word: "um", start: 0.5, end: 0.7 },
    { word: "chào", start: 0.8, end: 1.1 },
    { word: "các", start: 1.2, end: 1.4 },
    { word: "bạn", start: 1.4, end: 1.8 },
  ];

  it("takes the times of matching words, skipping words the cleaning removed, ignoring case", () => {
    expect(alignWords("Xin chào các bạn.", timed, { start: 0, end: 2 })).toEqual([
      { word: "Xin", start: 0.2, end: 0.5 },
      { word: "chào", start: 0.8, end: 1.1 },
      { word: "các", start: 1.2, end: 1.4 },
      { word: "bạn", start: 1.4, end: 1.8 },
    ]);
  });

  it("spreads unmatched words over the gap between timed neighbours", () => {
    const words = alignWords("xin mọi chào", timed, { start: 0, end: 2 });
    expect(words[1]).toEqual({ word: "mọi", start: 0.5, end: 0.8 });
    expect(words[2]).toEqual({ word: "chào", start: 0.8, end: 1.1 });
  });

  it("spreads every word over the segment when nothing is timed, by length", () => {
    expect(alignWords("ab abcd", [], { start: 1, end: 4 })).toEqual([
      { word: "ab", start: 1, end: 2 },
      { word: "abcd", start: 2, end: 4 },
    ]);
  });

  it("keeps times inside the segment and in order", () => {
    const words = alignWords(
      "one two three",
      [
        { word: "one", start: -1, end: 0.5 },
        { word: "two", start: 0.4, end: 9 },
        { word: "three", start: 0.2, end: 0.3 },
      ],
      { start: 0, end: 2 },
    );
    expect(words[0]).toEqual({ word: "one", start: 0, end: 0.5 });
    expect(words[1]).toEqual({ word: "two", start: 0.4, end: 2 });
    for (let i = 1; i < words.length; i++)
      expect(words[i]!.start).toBeGreaterThanOrEqual(words[i - 1]!.start);
    for (const word of words) expect(word.end).toBeGreaterThanOrEqual(word.start);
  });
});

describe("DetailedTranscriptionResult", () => {
  const figures = {
    seek: 0,
    tokens: [1],
    temperature: 0,
    avg_logprob: -0.1,
    compression_ratio: 1,
    no_speech_prob: 0,
  };

  it("accepts a result with one detail entry per segment, and one without detail", () => {
    expect(
      DetailedTranscriptionResult.safeParse({ ...sampleResult(), detail: { segments: [figures] } }).data
        ?.detail,
    ).toEqual({ segments: [figures], words: null, logprobs: null });
    expect(DetailedTranscriptionResult.safeParse(sampleResult()).success).toBe(true);
  });

  it("refuses detail that does not line up with the segments", () => {
    const parsed = DetailedTranscriptionResult.safeParse({
      ...sampleResult(),
      detail: { segments: [figures, figures] },
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(["detail", "segments"]);
  });
});
