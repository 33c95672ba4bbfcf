import { beforeAll, describe, expect, it } from "vitest";
import { bearer, call, createKey, createTranscription, deliver, resetDispatcher } from "./helpers.ts";
import { sampleResult, TestNode } from "./node-client.ts";

/**
 * GET /transcribe/{task_id}/subtitles in workerd, on tasks a test node really leased and finished (or
 * failed) through the internal routes.
 */

const segment = (start: number, end: number, text: string, speaker: string | null) => ({
  start,
  end,
  start_fmt: "",
  end_fmt: "",
  text,
  speaker,
});
const TRANSCRIPT = "Xin chào <bạn> & tôi. Tạm biệt.";
const diarized = {
  ...sampleResult(TRANSCRIPT),
  duration_sec: 3700,
  segments: [
    segment(0, 2.5, " Xin chào <bạn> & tôi.", "SPEAKER_00"),
    segment(3600.25, 3605.5, " Tạm biệt.", "SPEAKER_01"),
  ],
  translation: "Hello <friend> & me. Goodbye.",
};

let owner: { id: string; key: string };
const task = { done: "", plain: "", queued: "", processing: "", failed: "" };

/** Leases the next task and finishes it with `result` (or fails it with a permanent code). */
async function finish(taskId: string, result: Record<string, unknown> | "fail"): Promise<void> {
  await deliver([taskId]);
  const node = new TestNode();
  const [lease] = await node.lease();
  expect(lease?.task_id).toBe(taskId);
  if (result === "fail") {
    expect((await node.fail(lease?.lease_id ?? "", "media_unreadable", "not audio")).status).toBe(200);
  } else {
    expect((await node.complete(lease?.lease_id ?? "", result)).status).toBe(204);
  }
}

beforeAll(async () => {
  await resetDispatcher();
  owner = await createKey("subtitles");
  task.done = (await createTranscription(owner.id)).task_id;
  await finish(task.done, diarized);
  task.plain = (await createTranscription(owner.id)).task_id;
  await finish(task.plain, sampleResult("no translation here"));
  task.failed = (await createTranscription(owner.id)).task_id;
  await finish(task.failed, "fail");
  task.processing = (await createTranscription(owner.id)).task_id;
  await deliver([task.processing]);
  await new TestNode().lease();
  task.queued = (await createTranscription(owner.id)).task_id;
});

/** The body as UTF-8 (workerd warns when .text() reads a non-text/* type such as application/x-subrip). */
const utf8 = async (response: Response) => new TextDecoder().decode(await response.arrayBuffer());

const get = (taskId: string, query = "", key = owner.key) =>
  call(`/transcribe/${taskId}/subtitles${query}`, { headers: bearer(key) });

describe("GET /transcribe/{task_id}/subtitles", () => {
  it("srt by default: SPEAKER: prefixes, hours in the times, an attachment named after the task", async () => {
    const response = await get(task.done);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/x-subrip; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="${task.done}.srt"`);
    expect(await utf8(response)).toBe(
      "1\n00:00:00,000 --> 00:00:02,500\nSPEAKER_00: Xin chào <bạn> & tôi.\n\n" +
        "2\n01:00:00,250 --> 01:00:05,500\nSPEAKER_01: Tạm biệt.\n\n",
    );
  });

  it("vtt: voice tags and escaped text", async () => {
    const response = await get(task.done, "?format=vtt");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/vtt; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="${task.done}.vtt"`);
    expect(await utf8(response)).toBe(
      "WEBVTT\n\n00:00:00.000 --> 00:00:02.500\n<v SPEAKER_00>Xin chào &lt;bạn&gt; &amp; tôi.\n\n" +
        "01:00:00.250 --> 01:00:05.500\n<v SPEAKER_01>Tạm biệt.\n\n",
    );
  });

  it("txt and json", async () => {
    const txt = await get(task.done, "?format=txt");
    expect(txt.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await utf8(txt)).toBe("SPEAKER_00: Xin chào <bạn> & tôi.\nSPEAKER_01: Tạm biệt.\n");
    const json = await get(task.done, "?format=json");
    expect(json.headers.get("content-type")).toBe("application/json");
    expect(json.headers.get("content-disposition")).toBe(`attachment; filename="${task.done}.json"`);
    expect(await json.json()).toMatchObject({
      text: TRANSCRIPT,
      translation: diarized.translation,
      segments: [{ speaker: "SPEAKER_00" }, { speaker: "SPEAKER_01" }],
      audio_url: null,
    });
  });

  it("translated=true: the translation's sentences as cues, timed along the transcript", async () => {
    const srt = await get(task.done, "?format=srt&translated=true");
    expect(srt.status).toBe(200);
    const body = await utf8(srt);
    expect(body).toMatch(
      /^1\n00:00:00,000 --> [0-9:,]+\nHello <friend> & me\.\n\n2\n[0-9:,]+ --> 01:00:05,500\nGoodbye\.\n\n$/,
    );
    const vtt = await utf8(await get(task.done, "?format=vtt&translated=true"));
    expect(vtt).toContain("\nHello &lt;friend&gt; &amp; me.\n");
    expect(await utf8(await get(task.done, "?format=txt&translated=true"))).toBe(`${diarized.translation}\n`);
  });

  it("409 with {detail, code} while queued or processing, and for a failed task", async () => {
    for (const [id, says] of [
      [task.queued, "queued"],
      [task.processing, "processing"],
      [task.failed, "media_unreadable"],
    ] as const) {
      const response = await get(id, "?format=vtt");
      expect(response.status, id).toBe(409);
      const body = (await response.json()) as { detail: string; code: string };
      expect(body.code).toBe("conflict");
      expect(body.detail).toContain(says);
    }
  });

  it("diarized_json: OpenAI's TranscriptionDiarized of the task, for its owner only", async () => {
    const response = await get(task.done, "?format=diarized_json");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="${task.done}.diarized.json"`,
    );
    expect(await response.json()).toEqual({
      task: "transcribe",
      duration: 3700,
      text: TRANSCRIPT,
      segments: [
        {
          type: "transcript.text.segment",
          id: "seg_0",
          start: 0,
          end: 2.5,
          text: "Xin chào <bạn> & tôi.",
          speaker: "A",
        },
        {
          type: "transcript.text.segment",
          id: "seg_1",
          start: 3600.25,
          end: 3605.5,
          text: "Tạm biệt.",
          speaker: "B",
        },
      ],
      usage: { type: "duration", seconds: 3700 },
    });
    const stranger = await createKey("subtitles-stranger");
    const other = await get(task.done, "?format=diarized_json", stranger.key);
    expect(other.status).toBe(404);
    expect(JSON.stringify(await other.json())).not.toContain("Xin chào");
    const translated = await get(task.done, "?format=diarized_json&translated=true");
    expect(translated.status).toBe(400);
  });

  it("translated=true without a translation is 409; with json it is 400", async () => {
    const none = await get(task.plain, "?translated=true");
    expect(none.status).toBe(409);
    expect(await none.json()).toEqual({ detail: "this job has no translation", code: "conflict" });
    expect((await get(task.plain)).status).toBe(200);
    const json = await get(task.done, "?format=json&translated=true");
    expect(json.status).toBe(400);
    expect(((await json.json()) as { code: string }).code).toBe("bad_request");
  });

  it("422 for an unknown format or translated value, 401 without a key, 404 for an unknown id", async () => {
    for (const [query, loc] of [
      ["?format=ass", ["query", "format"]],
      ["?translated=yes", ["query", "translated"]],
    ] as const) {
      const response = await get(task.done, query);
      expect(response.status).toBe(422);
      const body = (await response.json()) as { code: string; detail: { loc: unknown[] }[] };
      expect(body.code).toBe("validation_error");
      expect(body.detail[0]?.loc).toEqual(loc);
    }
    expect((await call(`/transcribe/${task.done}/subtitles`)).status).toBe(401);
    expect((await get("no-such-task")).status).toBe(404);
  });
});
