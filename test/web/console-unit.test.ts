import { describe, expect, it } from "vitest";
import { VoxedgeApiError } from "../../client/errors.ts";
import { consolePageOf, consolePath, isConsolePath, KEYLESS_PAGES } from "../../protocol/console-routes.ts";
import type { TranscriptionResult } from "../../protocol/transcription.ts";
import { RateMeter } from "../../web/src/api/upload.ts";
import { LIVE_RATE, levelOf, Pcm16Encoder } from "../../web/src/audio/pcm16.ts";
import { formatMessage } from "../../web/src/i18n/format.ts";
import { en, vi } from "../../web/src/i18n/messages.ts";
import { exportFile, exportText } from "../../web/src/job/exports.ts";
import { enrolledNames, speakersOf } from "../../web/src/job/speakers.ts";
import { segmentAt, wordsOf } from "../../web/src/job/sync.ts";
import { estimateJob, processingRatioOf } from "../../web/src/jobs/estimate.ts";
import { inlinePreviewUrl } from "../../web/src/studio/task-view.ts";

/** The console's pure parts (run in Node): formats, audio packing, estimates, page paths. */

const result = (segments: TranscriptionResult["segments"], text = "whole text"): TranscriptionResult => ({
  text,
  raw_text: text,
  language: "English",
  model: "base",
  duration_sec: 70,
  asr_ms: 1000,
  diarize_ms: 0,
  total_ms: 1200,
  rtf: 0.01,
  segments,
  segment_count: segments.length,
  has_timestamps: segments.length > 0,
  speaker_turns: null,
  speakers_pending: false,
  translation: null,
  audio_url: null,
});
const segment = (start: number, end: number, text: string, speaker: string | null = null) => ({
  start,
  end,
  start_fmt: "",
  end_fmt: "",
  text,
  speaker,
});

describe("transcript files", () => {
  const twoSpeakers = result([
    segment(0, 1.5, " Hello <there> & you", "SPEAKER_00"),
    segment(1.5, 3661.25, " Second line", "SPEAKER_01"),
    segment(3661.25, 3662, "   ", "SPEAKER_01"),
  ]);
  const names = { SPEAKER_00: "Alice" };

  it("writes SRT through the shared writer: cues from 1, blank ones left out, given names before the text", () => {
    expect(exportText("srt", twoSpeakers, names)).toBe(
      "1\n00:00:00,000 --> 00:00:01,500\nAlice: Hello <there> & you\n\n" +
        "2\n00:00:01,500 --> 01:01:01,250\nSPEAKER_01: Second line\n\n",
    );
  });

  it("writes WebVTT with the given names as voice tags and escaped text", () => {
    expect(exportText("vtt", twoSpeakers, names)).toBe(
      "WEBVTT\n\n00:00:00.000 --> 00:00:01.500\n<v Alice>Hello &lt;there&gt; &amp; you\n\n" +
        "00:00:01.500 --> 01:01:01.250\n<v SPEAKER_01>Second line\n\n",
    );
  });

  it("writes plain text per segment, or the whole text when there are no segments", () => {
    expect(exportText("txt", twoSpeakers, names)).toBe(
      "Alice: Hello <there> & you\nSPEAKER_01: Second line\n",
    );
    expect(exportText("txt", result([], "  just text "), names)).toBe("just text\n");
  });

  it("keeps the result and the given names in the JSON file", async () => {
    const blob = exportFile("json", twoSpeakers, { SPEAKER_00: "Alice" });
    expect(blob.type).toBe("application/json");
    expect(JSON.parse(await blob.text())).toEqual({ ...twoSpeakers, speaker_names: { SPEAKER_00: "Alice" } });
  });

  it("lists speakers in order of first appearance", () => {
    expect(
      speakersOf([
        { speaker: "SPEAKER_01" },
        { speaker: null },
        { speaker: "SPEAKER_00" },
        { speaker: "SPEAKER_01" },
      ]),
    ).toEqual(["SPEAKER_01", "SPEAKER_00"]);
  });

  it("names a speaker after its enrolled voice until the user renames it", () => {
    expect(
      enrolledNames([
        { speaker: "SPEAKER_00", speaker_name: "agent" },
        { speaker: "SPEAKER_01" },
        { speaker: null },
        { speaker: "SPEAKER_00", speaker_name: "agent" },
      ]),
    ).toEqual({ SPEAKER_00: "agent" });
  });
});

describe("player sync", () => {
  const segments = [segment(0, 2, "a"), segment(2, 5, "b"), segment(7, 9, "c")];

  it("finds the segment playing at a time, -1 in gaps and past the end", () => {
    expect(segmentAt(segments, 0)).toBe(0);
    expect(segmentAt(segments, 2)).toBe(1);
    expect(segmentAt(segments, 4.99)).toBe(1);
    expect(segmentAt(segments, 6)).toBe(-1);
    expect(segmentAt(segments, 8)).toBe(2);
    expect(segmentAt(segments, 9)).toBe(-1);
    expect(segmentAt([], 1)).toBe(-1);
  });

  it("times each word by its place in the segment's text", () => {
    expect(wordsOf(segment(10, 12, " ab cd "))).toEqual([
      { text: "ab", start: 10 },
      { text: "cd", start: 11.2 },
    ]);
  });
});

describe("microphone packing", () => {
  /** Int16 samples of the chunks, read little-endian. */
  const samples = (chunks: ArrayBuffer[]) =>
    chunks.flatMap((chunk) => {
      const view = new DataView(chunk);
      return Array.from({ length: chunk.byteLength / 2 }, (_, i) => view.getInt16(i * 2, true));
    });

  it("resamples 48 kHz to 16 kHz PCM16 LE in fixed chunks, across arbitrary input blocks", () => {
    const encoder = new Pcm16Encoder(48_000, 1_600);
    const second = Float32Array.from(
      { length: 48_000 },
      (_, i) => 0.5 * Math.sin((2 * Math.PI * 440 * i) / 48_000),
    );
    const chunks: ArrayBuffer[] = [];
    for (let at = 0; at < second.length; at += 128)
      chunks.push(...encoder.push(second.subarray(at, at + 128)));
    expect(chunks).toHaveLength(10);
    expect(chunks.every((chunk) => chunk.byteLength === 3_200)).toBe(true);
    const out = samples(chunks);
    // Each output sample is the mean of three inputs: the 440 Hz tone survives at nearly full amplitude.
    const peak = Math.max(...out.map(Math.abs));
    expect(peak).toBeGreaterThan(0.45 * 32767);
    expect(peak).toBeLessThanOrEqual(0.5 * 32767);
    const expected = (n: number) =>
      ([0, 1, 2].reduce((sum, k) => sum + 0.5 * Math.sin((2 * Math.PI * 440 * (3 * n + k)) / 48_000), 0) /
        3) *
      32767;
    for (const n of [0, 1, 100, 15_999]) expect(Math.abs((out[n] ?? 0) - expected(n))).toBeLessThanOrEqual(1);
  });

  it("handles 44.1 kHz (a fractional ratio) and 16 kHz input, and clips out-of-range samples", () => {
    const from44 = new Pcm16Encoder(44_100, 1_600);
    const chunks = from44.push(new Float32Array(44_100).fill(0.25));
    expect(chunks).toHaveLength(LIVE_RATE / 1_600);
    expect(new Set(samples(chunks))).toEqual(new Set([Math.round(0.25 * 32767)]));
    const same = new Pcm16Encoder(16_000, 4);
    expect(samples(same.push(Float32Array.from([2, -2, 0.5, -0.5])))).toEqual([32767, -32768, 16384, -16384]);
  });

  it("gives a 0..1 level from -60 dBFS to full scale", () => {
    expect(levelOf(new Float32Array(128))).toBe(0);
    expect(levelOf(new Float32Array(128).fill(1))).toBe(1);
    expect(levelOf(new Float32Array(128).fill(0.001))).toBeCloseTo(0, 6);
    expect(levelOf(new Float32Array(128).fill(0.1))).toBeCloseTo(2 / 3, 5);
  });
});

describe("job estimates", () => {
  const status = (over: object) => ({ task_id: "t", status: "queued" as const, ...over });

  it("shows the node's reported progress once it has one, with the time left from the pace so far", () => {
    const reported = estimateJob({
      status: status({ status: "processing", progress: 25 }),
      durationSec: null,
      processingRatio: null,
      processingForSec: 10,
    });
    expect(reported).toEqual({ progress: 0.25, etaSec: 30 });
    const almost = estimateJob({
      status: status({ status: "processing", progress: 100 }),
      durationSec: 60,
      processingRatio: 0.5,
      processingForSec: 10,
    });
    expect(almost.progress).toBe(0.99);
  });

  it("estimates progress and time left while processing, never reaching 100% before done", () => {
    const running = estimateJob({
      status: status({ status: "processing" }),
      durationSec: 60,
      processingRatio: 0.5,
      processingForSec: 10,
    });
    expect(running.progress).toBeCloseTo(1 / 3, 5);
    expect(running.etaSec).toBe(20);
    const late = estimateJob({
      status: status({ status: "processing" }),
      durationSec: 60,
      processingRatio: 0.5,
      processingForSec: 90,
    });
    expect(late).toEqual({ progress: 0.95, etaSec: 0 });
    expect(
      estimateJob({
        status: status({ status: "done" }),
        durationSec: null,
        processingRatio: null,
        processingForSec: 0,
      }),
    ).toEqual({
      progress: 1,
      etaSec: 0,
    });
  });

  it("counts the jobs ahead in line, run `concurrency` at a time", () => {
    const queued = estimateJob({
      status: status({ queue: { queued: 5, processing: 2, position: 3, concurrency: 2 } }),
      durationSec: 40,
      processingRatio: 0.25,
      processingForSec: 0,
    });
    // 2 running + 2 ahead = 4 jobs of 10 s on 2 lanes: 20 s of waiting, then its own 10 s.
    expect(queued).toEqual({ progress: 0, etaSec: 30 });
  });

  it("says nothing when the audio length or the recent speed is unknown", () => {
    expect(
      estimateJob({ status: status({}), durationSec: null, processingRatio: 0.5, processingForSec: 0 }),
    ).toEqual({
      progress: null,
      etaSec: null,
    });
    expect(processingRatioOf([])).toBeNull();
    expect(
      processingRatioOf([
        { duration_sec: 10, total_ms: 5000, asr_ms: 1 },
        { duration_sec: 10, total_ms: 0, asr_ms: 2000 },
        { duration_sec: 0, total_ms: 1, asr_ms: 1 },
        { duration_sec: 10, total_ms: 1000, asr_ms: 1 },
      ]),
    ).toBe(0.2);
  });

  it("measures upload speed over a sliding window", () => {
    const meter = new RateMeter(1_000);
    expect(meter.add(0, 0)).toBeNull();
    expect(meter.add(100, 10_000)).toBeNull();
    expect(meter.add(500, 50_000)).toBe(100_000);
    expect(meter.add(2_000, 50_000)).toBe(0);
  });
});

describe("API failures", () => {
  it("reads our {detail, code}, a 422's issue list, and OpenAI's envelope", () => {
    expect(VoxedgeApiError.fromBody(401, { detail: "invalid API key", code: "unauthorized" })).toMatchObject({
      status: 401,
      code: "unauthorized",
      message: "invalid API key",
    });
    expect(
      VoxedgeApiError.fromBody(422, {
        detail: [
          { loc: ["body", "context"], msg: "too long", type: "too_big" },
          { loc: ["query"], msg: "bad", type: "x" },
        ],
        code: "validation_error",
      }).message,
    ).toBe("context: too long; query: bad");
    expect(VoxedgeApiError.fromBody(429, { error: { message: "slow down" } }, "", 7)).toMatchObject({
      message: "slow down",
      retryAfterSec: 7,
    });
    expect(VoxedgeApiError.fromBody(502, null, "Bad Gateway").message).toBe("Bad Gateway");
  });

  it("reads the content service's {error, error_key, message} and real-time translation's {error, code}", () => {
    expect(
      VoxedgeApiError.fromBody(400, {
        error: "invalid slide count range",
        error_key: "invalid_slide_count_range",
        message: 'slide_count_range must be "a-b" with 1 <= a <= b <= 30',
      }),
    ).toMatchObject({
      status: 400,
      code: "invalid_slide_count_range",
      message: 'slide_count_range must be "a-b" with 1 <= a <= b <= 30',
    });
    expect(
      VoxedgeApiError.fromBody(404, { error: "conversation not found or expired", code: "not_found" }),
    ).toMatchObject({ code: "not_found", message: "conversation not found or expired" });
  });
});

describe("PDF preview links", () => {
  it("asks the API's /media route for an inline document and leaves other links alone", () => {
    const key = "outputs/6f1c1c9e-5d1b-4c57-9a55-0b7f3c1e2d4a/deck.pdf";
    expect(inlinePreviewUrl(`https://api.example/media/${key}?expires=1&sig=x`)).toBe(
      `https://api.example/media/${key}?expires=1&sig=x&disposition=inline`,
    );
    expect(inlinePreviewUrl(`/media/${key}`)).toBe(`/media/${key}?disposition=inline`);
    const presignedR2 = `https://acct.r2.cloudflarestorage.com/voxedge-media/${key}?X-Amz-Signature=abc`;
    expect(inlinePreviewUrl(presignedR2)).toBe(presignedR2);
  });
});

describe("console paths", () => {
  it("knows the console's pages", () => {
    for (const path of [
      "/",
      "/history",
      "/jobs/abc-123",
      "/live",
      "/translate",
      "/studio",
      "/join/2b7e",
      "/speakers",
    ])
      expect(isConsolePath(path), path).toBe(true);
    for (const path of [
      "/docs",
      "/health",
      "/jobs",
      "/jobs/",
      "/jobs/a/b",
      "/history/x",
      "/media/uploads/x",
      "/join",
      "/join/",
      "/join/a/b",
      "/api/v1/languages",
    ])
      expect(isConsolePath(path), path).toBe(false);
    expect(consolePath("job", { id: "a/b c" })).toBe("/jobs/a%2Fb%20c");
    expect(consolePath("room", { id: "2b7e" })).toBe("/join/2b7e");
  });

  it("lets only a room's page through without a key", () => {
    expect(consolePageOf("/join/2b7e")).toBe("room");
    expect(consolePageOf("/translate")).toBe("translate");
    expect(consolePageOf("/nowhere")).toBeNull();
    expect([...KEYLESS_PAGES]).toEqual(["room"]);
  });
});

describe("UI messages", () => {
  it("counts in English's singular for one and plural otherwise, and in Vietnamese's one form", () => {
    const segments = en["transcript.segmentCount"];
    expect(formatMessage(segments, { count: 1 }, "en-US")).toBe("1 segment");
    expect(formatMessage(segments, { count: 0 }, "en-US")).toBe("0 segments");
    expect(formatMessage(segments, { count: 2 }, "en-US")).toBe("2 segments");
    expect(formatMessage(vi["transcript.segmentCount"], { count: 1 }, "vi-VN")).toBe("1 đoạn");
    const summary = formatMessage(
      en["transcript.summary"],
      {
        language: "English",
        duration: "0:05",
        segments: formatMessage(segments, { count: 1 }, "en-US"),
        speakers: formatMessage(en["transcript.speakerCount"], { count: 1 }, "en-US"),
      },
      "en-US",
    );
    expect(summary).toBe("English · 0:05 · 1 segment · 1 speaker");
  });

  it("leaves a placeholder without a value visible instead of printing undefined", () => {
    expect(formatMessage("{sent} of {total}", { sent: "1 MB" }, "en-US")).toBe("1 MB of {total}");
  });

  it("has no English message that would say '1 <things>': every counted noun is a plural message", () => {
    for (const [key, message] of Object.entries(en)) {
      if (typeof message === "string") {
        expect(message, key).not.toMatch(/\{count\} [a-z ]*s\b/);
      } else {
        expect(formatMessage(message, { count: 1 }, "en-US"), key).not.toMatch(/^1 \w+( \w+)*s$/);
        expect(formatMessage(message, { count: 3 }, "en-US"), key).toMatch(/^3 /);
      }
    }
  });
});
