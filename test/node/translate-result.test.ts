import { afterEach, describe, expect, it } from "vitest";
import { translateResult } from "../../inference-node/pipeline/translate-result.ts";
import { TaskFailureError } from "../../inference-node/task-failure.ts";
import { LibreTranslateTranslator } from "../../inference-node/translate/libretranslate.ts";
import type { TranscriptionResult } from "../../protocol/transcription.ts";
import { type FakeServer, libreTranslateHandler, sendJson, startServer } from "./translate-fake-servers.ts";

/**
 * Speech into a language other than English (the compatible translations route's `target_language`):
 * the transcript's segments through a real LibreTranslate-shaped HTTP server on 127.0.0.1.
 */

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const segment = (start: number, end: number, text: string) => ({
  start,
  end,
  start_fmt: "",
  end_fmt: "",
  text,
  speaker: "SPEAKER_00",
});

const transcript: TranscriptionResult = {
  text: "Xin chào. Tạm biệt.",
  raw_text: "xin chào tạm biệt",
  language: "Vietnamese",
  model: "whisper-base",
  duration_sec: 4,
  asr_ms: 10,
  diarize_ms: 0,
  total_ms: 20,
  rtf: 0.01,
  segments: [segment(0, 2, "Xin chào."), segment(2, 2.5, " "), segment(2.5, 4, "Tạm biệt.")],
  segment_count: 3,
  has_timestamps: true,
  speaker_turns: null,
  speakers_pending: false,
  translation: "Hello. Goodbye.",
  audio_url: null,
};

const never = new AbortController().signal;

describe("translateResult", () => {
  it("translates every segment, keeps their times, and names the target language", async () => {
    server = await startServer(libreTranslateHandler());
    const translator = new LibreTranslateTranslator({ url: server.url });
    let segmentsDone = 0;
    const result = await translateResult(transcript, "vi", "es", translator, never, () => segmentsDone++);
    // each segment is a sign of life for the node's stall limit
    expect(segmentsDone).toBe(3);
    expect(result.segments.map((s) => [s.start, s.end, s.text, s.speaker])).toEqual([
      [0, 2, "<es>Xin chào.</es>", "SPEAKER_00"],
      [2, 2.5, "", "SPEAKER_00"],
      [2.5, 4, "<es>Tạm biệt.</es>", "SPEAKER_00"],
    ]);
    expect(result.text).toBe("<es>Xin chào.</es> <es>Tạm biệt.</es>");
    expect(result.language).toBe("Spanish");
    expect(result.raw_text).toBe(transcript.raw_text);
    expect(result.translation).toBeNull();
    // the blank segment is not sent
    expect(server.requests.map((r) => (r.body as { source: string; target: string }).target)).toEqual([
      "es",
      "es",
    ]);
  });

  it("leaves speech already in the target as it is", async () => {
    expect(await translateResult(transcript, "vi", "vi", null, never)).toBe(transcript);
  });

  it("fails translation_unavailable without a backend and translation_failed when it fails", async () => {
    const none = await translateResult(transcript, "vi", "es", null, never).catch((e) => e);
    expect(none).toBeInstanceOf(TaskFailureError);
    expect(none).toMatchObject({ code: "translation_unavailable", message: /vi->es/ });

    server = await startServer((_req, res) => sendJson(res, 500, { error: "boom" }));
    const failing = new LibreTranslateTranslator({ url: server.url });
    const failed = await translateResult(transcript, "vi", "es", failing, never).catch((e) => e);
    expect(failed).toBeInstanceOf(TaskFailureError);
    expect(failed).toMatchObject({ code: "translation_failed", message: /translation vi->es failed/ });
  });
});
