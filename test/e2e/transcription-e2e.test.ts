import { type ChildProcess, execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unwrap } from "../../client/index.ts";
import { TranscriptionResult } from "../../protocol/transcription.ts";
import { buildDialogue } from "../helpers/dialogue.ts";
import { LocalPlatform } from "../helpers/local-platform.ts";
import { writeWav } from "../helpers/wav.ts";
import { speechPcm } from "../native/audio.ts";

/**
 * The whole platform for real: wrangler dev (Worker, D1, R2, Durable Objects, Queue), inference node
 * processes with the native addon and a synthetic model, ffmpeg, and a media server on loopback.
 */

let dir: string;
let files: Server;
let stack: LocalPlatform;
let mediaOrigin: string;
let node: ChildProcess;
let speechSec: number;
/** The media server's hooks for the next `/stall/…` download (which it never finishes). */
let stall = { started: () => {}, closed: () => {} };
/** Downloads of `/stall/…` begun, one per attempt of a task. */
let stallRequests = 0;

/** Promises for the next stalled download: its request arrived, its client hung up. */
function nextStall(): { started: Promise<void>; closed: Promise<void> } {
  const started = new Promise<void>((resolve) => {
    stall = { ...stall, started: resolve };
  });
  const closed = new Promise<void>((resolve) => {
    stall = { ...stall, closed: resolve };
  });
  return { started, closed };
}

const SPEECH = "Hello from the edge. This sentence is spoken by a synthetic voice for testing.";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "voxedge-e2e-"));
  const speech = await speechPcm(SPEECH);
  speechSec = speech.length / 16_000;
  writeWav(join(dir, "speech.wav"), speech);
  writeWav(join(dir, "dialogue.wav"), (await buildDialogue(2, 6, 7)).pcm);
  // A real ID3v2 header (binary bytes, so the enqueue's sniffing takes it for media) before text no
  // decoder can read: the failure must come from the decode, in words.
  writeFileSync(
    join(dir, "corrupt.mp3"),
    Buffer.concat([
      Buffer.from([0x49, 0x44, 0x33, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a]),
      Buffer.alloc(10),
      Buffer.from("this is definitely not an mp3 stream ".repeat(200)),
    ]),
  );
  // issue #19's reproductions: an HLS playlist naming a local file, uploaded as .mp3, and a
  // 10-hour silent FLAC of a few MB
  writeFileSync(
    join(dir, "playlist.mp3"),
    `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n${join(dir, "speech.wav")}\n#EXT-X-ENDLIST\n`,
  );
  execFileSync("ffmpeg", [
    ...["-loglevel", "error", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "36000"],
    ...["-c:a", "flac", join(dir, "ten-hours.flac")],
  ]);
  files = createServer((req, res) => {
    const [, mode, name] = (req.url ?? "").split("/");
    let body: Buffer;
    try {
      body = readFileSync(join(dir, name ?? ""));
    } catch {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": body.length });
    if (req.method === "HEAD") return void res.end();
    if (mode === "stall") {
      // Half the file, then nothing: the node stays mid-download until it gives up on the task.
      res.once("close", stall.closed);
      stallRequests++;
      stall.started();
      return void res.write(body.subarray(0, body.length >> 1));
    }
    if (mode !== "slow") return void res.end(body);
    // Trickle the body over ~4 s so a node is surely mid-task when the test kills it.
    let at = 0;
    const step = Math.ceil(body.length / 40);
    const timer = setInterval(() => {
      res.write(body.subarray(at, at + step));
      at += step;
      if (at >= body.length) {
        clearInterval(timer);
        res.end();
      }
    }, 100);
    res.once("close", () => clearInterval(timer));
  });
  await new Promise<void>((r) => files.listen(0, "127.0.0.1", r));
  const port = (files.address() as AddressInfo).port;
  mediaOrigin = `http://127.0.0.1:${port}`;
  stack = await LocalPlatform.start({ allowlist: [`127.0.0.1:${port}`], vars: { LEASE_TTL_SEC: "3" } });
  node = await stack.startNode();
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  files?.closeAllConnections();
  await new Promise((r) => files?.close(r));
  await rm(dir, { recursive: true, force: true });
});

/** A multipart body as it is: the schema types the form as an object, openapi-fetch sends a FormData untouched. */
const multipart = (form: FormData) => form as never;

async function enqueueUrl(url: string): Promise<string> {
  const accepted = await unwrap(stack.client.POST("/transcribe", { body: { file_url: url } }));
  expect(accepted.status).toBe("queued");
  return accepted.task_id;
}

/** Checks a finished result against the spec schema and the invariants a client relies on. */
function expectValidResult(result: unknown, durationSec: number): TranscriptionResult {
  const parsed = TranscriptionResult.strict().parse(result);
  expect(parsed.model).toBe("whisper-base");
  expect(parsed.language).toMatch(/^[A-Z][a-z]+( [A-Z][a-z]+)*$/);
  expect(parsed.duration_sec).toBeGreaterThan(durationSec - 0.5);
  expect(parsed.duration_sec).toBeLessThan(durationSec + 0.5);
  expect(parsed.rtf).toBeCloseTo(parsed.asr_ms / 1000 / parsed.duration_sec, 6);
  expect(parsed.total_ms).toBeGreaterThanOrEqual(parsed.asr_ms);
  expect(parsed.speakers_pending).toBe(false);
  expect(parsed.segment_count).toBe(parsed.segments.length);
  for (const segment of parsed.segments) {
    expect(segment.start).toBeLessThanOrEqual(segment.end);
    expect(segment.start_fmt).toMatch(/^\d{2}:\d{2}\.\d{3}$/);
  }
  return parsed;
}

describe("transcription end to end", () => {
  it("runs a URL job to done with a result that matches the spec", async () => {
    const taskId = await enqueueUrl(`${mediaOrigin}/files/speech.wav`);
    const done = await stack.settle(taskId);
    expect(done.error ?? null).toBeNull();
    expect(done.status).toBe("done");
    expect(done.queue).toBeNull();
    const result = expectValidResult(done.result, speechSec);
    expect(Array.isArray(result.speaker_turns)).toBe(true);
  });

  it("runs a presigned upload to done and serves its audio back", async () => {
    const wav = readFileSync(join(dir, "speech.wav"));
    const { object_key, upload_url } = await unwrap(
      stack.client.POST("/uploads/presign", { body: { filename: "speech.wav", content_type: "audio/wav" } }),
    );
    // the signed URL is storage's, outside the API's paths: a plain PUT, as a browser would send it
    const put = await fetch(upload_url, {
      method: "PUT",
      headers: { "content-type": "audio/wav" },
      body: wav,
    });
    expect(put.ok).toBe(true);
    const { task_id } = await unwrap(
      stack.client.POST("/transcribe/object", { body: { object_key, language: "en" } }),
    );
    const done = await stack.settle(task_id);
    expect(done.status).toBe("done");
    const result = expectValidResult(done.result, speechSec);
    expect(result.language).toBe("English");
    expect(result.audio_url).toBeTruthy();
    const audio = await fetch(result.audio_url!); // a signed link: no key, no client
    expect(Buffer.from(await audio.arrayBuffer()).equals(wav)).toBe(true);
  });

  it("runs a multipart upload to done", async () => {
    const form = new FormData();
    form.append("language", "vi");
    form.append(
      "file",
      new Blob([readFileSync(join(dir, "speech.wav"))], { type: "audio/wav" }),
      "speech.wav",
    );
    const { task_id } = await unwrap(stack.client.POST("/transcribe/upload", { body: multipart(form) }));
    const done = await stack.settle(task_id);
    expect(done.status).toBe("done");
    expect(expectValidResult(done.result, speechSec).language).toBe("Vietnamese");
  });

  it("labels a two-voice dialogue with two speakers", async () => {
    const taskId = await enqueueUrl(`${mediaOrigin}/files/dialogue.wav`);
    const done = await stack.settle(taskId, 90_000);
    expect(done.status).toBe("done");
    const turns = done.result?.speaker_turns ?? [];
    expect(new Set(turns.map((t) => t.speaker))).toEqual(new Set(["SPEAKER_00", "SPEAKER_01"]));
  });

  it("fails a corrupt file with a readable error, never leaving it processing", async () => {
    const taskId = await enqueueUrl(`${mediaOrigin}/files/corrupt.mp3`);
    const failed = await stack.settle(taskId);
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(/cannot decode the media as audio/);
    expect(failed.queue).toBeNull();
  });

  it("fails an uploaded HLS playlist naming a local file with unsupported_media, decoding nothing", async () => {
    const form = new FormData();
    form.append("file", new Blob([readFileSync(join(dir, "playlist.mp3"))], { type: "audio/mpeg" }), "a.mp3");
    const { task_id } = await unwrap(stack.client.POST("/transcribe/upload", { body: multipart(form) }));
    const failed = await stack.settle(task_id);
    expect(failed).toMatchObject({ status: "failed", error_code: "unsupported_media", result: null });
    expect(failed.error).toMatch(/HLS\/M3U playlist/);
  });

  it("fails a 10-hour FLAC with audio_too_long without decoding it (poll and OpenAI route)", async () => {
    const started = performance.now();
    const taskId = await enqueueUrl(`${mediaOrigin}/files/ten-hours.flac`);
    const failed = await stack.settle(taskId);
    console.log(`10 h FLAC failed after ${Math.round(performance.now() - started)} ms`);
    expect(failed).toMatchObject({ status: "failed", error_code: "audio_too_long", queue: null });
    expect(failed.error).toMatch(/10:00:00.*longer than the 14400 s limit/);

    const form = new FormData();
    form.append("model", "whisper-1");
    form.append("file", new Blob([readFileSync(join(dir, "ten-hours.flac"))]), "ten-hours.flac");
    await expect(
      stack.client.POST("/v1/audio/transcriptions", { body: multipart(form) }),
    ).rejects.toMatchObject({
      status: 413,
      code: "audio_too_long",
      // the OpenAI envelope as sent
      body: {
        error: { code: "audio_too_long", param: "file", message: expect.stringMatching(/14400 s limit/) },
      },
    });
  });

  it("cancels a running job on DELETE: the node stops within a heartbeat and takes the next job", async () => {
    const stalled = nextStall();
    const taskId = await enqueueUrl(`${mediaOrigin}/stall/speech.wav`);
    await stalled.started;
    expect((await stack.poll(taskId)).status).toBe("processing");
    const byId = { params: { path: { task_id: taskId } } };
    const { response: deleted } = await stack.client.DELETE("/transcribe/{task_id}", byId);
    expect(deleted.status).toBe(204);
    // The node hangs up on the download once its heartbeat hears of the cancel (nothing else ends it).
    await stalled.closed;
    await expect(stack.client.GET("/transcribe/{task_id}", byId)).rejects.toMatchObject({
      status: 404,
      code: "not_found",
    });
    const next = await stack.settle(await enqueueUrl(`${mediaOrigin}/files/speech.wav`), 60_000);
    expect(next.status).toBe("done");
  });

  it("loses nothing when a node is killed mid-task: the next node completes it", async () => {
    const taskId = await enqueueUrl(`${mediaOrigin}/slow/speech.wav`);
    for (let i = 0; (await stack.poll(taskId)).status !== "processing"; i++) {
      if (i > 100) throw new Error("task never started");
      await new Promise((r) => setTimeout(r, 100));
    }
    node.kill("SIGKILL");
    await new Promise((r) => node.once("exit", r));
    node = await stack.startNode();
    const done = await stack.settle(taskId, 60_000);
    expect(done.status).toBe("done");
    expectValidResult(done.result, speechSec);
  });

  it("fails a task whose work stops making progress as task_stalled on every attempt, and takes the next job", async () => {
    // the heartbeat alone would keep this download's task processing for as long as the node lives
    node.kill("SIGKILL");
    await new Promise((r) => node.once("exit", r));
    node = await stack.startNode({ env: { VOXEDGE_TASK_STALL_SEC: "2" } });
    const stalled = nextStall();
    const attemptsBefore = stallRequests;
    const taskId = await enqueueUrl(`${mediaOrigin}/stall/speech.wav`);
    await stalled.started;
    // the node stops it: it hangs up on the download
    await stalled.closed;
    const failed = await stack.settle(taskId, 60_000);
    expect(failed).toMatchObject({ status: "failed", error_code: "task_stalled", result: null, queue: null });
    expect(failed.error).toMatch(/no progress for 2 s/);
    // retryable: every one of MAX_TASK_ATTEMPTS (3) attempts ran and stalled
    expect(stallRequests - attemptsBefore).toBe(3);
    const next = await stack.settle(await enqueueUrl(`${mediaOrigin}/files/speech.wav`), 60_000);
    expect(next.status).toBe("done");
  });
});
