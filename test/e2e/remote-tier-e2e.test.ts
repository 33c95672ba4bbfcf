import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unwrap } from "../../client/index.ts";
import { ensureSyntheticModel } from "../../native/model/synthetic.ts";
import { TranscriptionResult } from "../../protocol/transcription.ts";
import { LocalPlatform } from "../helpers/local-platform.ts";
import { writeWav } from "../helpers/wav.ts";
import { startWhisperServer, type WhisperServer } from "../helpers/whisper-server.ts";
import { speechPcm } from "../native/audio.ts";

/**
 * The registry's `http` tier on the local stack with **zero nodes**: the default model is an http entry
 * pointing at whisper.cpp's own whisper-server (built from the addon's pinned tree, OpenAI path,
 * synthetic model: its text is noise, shapes are checked), and, as a second deployment, at Voxedge's own
 * /v1 of a stack that has a node. Every way in (URL, upload, presign + object, the OpenAI route) must
 * reach done through the Worker-side executor.
 */

let dir: string;
let whisper: WhisperServer;
let edge: LocalPlatform;
let files: Server;
let mediaOrigin: string;
let speechSec: number;

function registry(endpoint: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    default_model: "remote-whisper",
    models: [
      // whisper-server answers verbose_json: its segments carry timestamps.
      {
        id: "remote-whisper",
        label: "Remote whisper",
        kind: "http",
        endpoint,
        supports_timestamps: true,
        ...extra,
      },
    ],
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "voxedge-remote-e2e-"));
  const speech = await speechPcm("Hello from the edge. A remote tier transcribes this.");
  speechSec = speech.length / 16_000;
  writeWav(join(dir, "speech.wav"), speech);
  files = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "audio/wav" }).end(readFileSync(join(dir, "speech.wav")));
  });
  await new Promise<void>((resolve) => files.listen(0, "127.0.0.1", resolve));
  mediaOrigin = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  whisper = await startWhisperServer(await ensureSyntheticModel("micro"), 1);
  edge = await LocalPlatform.start({
    allowlist: [new URL(mediaOrigin).host],
    vars: { LEASE_TTL_SEC: "10", MODEL_REGISTRY: registry(whisper.transcriptionsUrl) },
  });
}, 600_000);

afterAll(async () => {
  await edge?.stop();
  await whisper?.stop();
  files?.closeAllConnections();
  await new Promise((r) => files?.close(r));
  await rm(dir, { recursive: true, force: true });
});

/** A multipart body as it is: the schema types the form as an object, openapi-fetch sends a FormData untouched. */
const multipart = (form: FormData) => form as never;

/** The task id of an accepted multipart upload. */
async function upload(stack: LocalPlatform, form: FormData): Promise<string> {
  return (await unwrap(stack.client.POST("/transcribe/upload", { body: multipart(form) }))).task_id;
}

function expectRemoteResult(result: unknown): TranscriptionResult {
  const parsed = TranscriptionResult.strict().parse(result);
  expect(parsed.model).toBe("remote-whisper");
  expect(parsed.duration_sec).toBeGreaterThan(speechSec - 0.5);
  expect(parsed.segment_count).toBe(parsed.segments.length);
  expect(parsed.speaker_turns).toBeNull();
  return parsed;
}

describe("http tier → whisper-server, zero nodes", { timeout: 180_000 }, () => {
  it("/models shows the http entry ready", async () => {
    const models = await unwrap(edge.client.GET("/models"));
    expect(models.models).toEqual([
      expect.objectContaining({ id: "remote-whisper", kind: "http", ready: true }),
    ]);
  });

  it("runs a URL job to done (the Worker fetches file_url)", async () => {
    const { task_id: taskId } = await unwrap(
      edge.client.POST("/transcribe", { body: { file_url: `${mediaOrigin}/speech.wav` } }),
    );
    const done = await edge.settle(taskId, 120_000);
    expect(done.error ?? null).toBeNull();
    expect(done.status).toBe("done");
    expect(done.progress).toBe(100);
    expectRemoteResult(done.result);
  });

  it("runs a multipart upload to done", async () => {
    const form = new FormData();
    form.append("language", "en");
    form.append(
      "file",
      new Blob([readFileSync(join(dir, "speech.wav"))], { type: "audio/wav" }),
      "speech.wav",
    );
    const done = await edge.settle(await upload(edge, form), 120_000);
    expect(done.status).toBe("done");
    expect(expectRemoteResult(done.result).language).toBe("English");
  });

  it("runs a presigned upload + /transcribe/object to done", async () => {
    const { object_key, upload_url } = await unwrap(
      edge.client.POST("/uploads/presign", { body: { filename: "speech.wav", content_type: "audio/wav" } }),
    );
    // storage's presigned URL, not the API: a plain PUT as any uploader makes it
    const put = await fetch(upload_url, {
      method: "PUT",
      headers: { "content-type": "audio/wav" },
      body: readFileSync(join(dir, "speech.wav")),
    });
    expect(put.ok).toBe(true);
    const { task_id: taskId } = await unwrap(
      edge.client.POST("/transcribe/object", { body: { object_key, language: "en" } }),
    );
    const done = await edge.settle(taskId, 120_000);
    expect(done.status).toBe("done");
    expectRemoteResult(done.result);
  });

  it("serves POST /v1/audio/transcriptions through the tier, with history", async () => {
    const client = new OpenAI({ apiKey: edge.key, baseURL: `${edge.url}/v1`, maxRetries: 0 });
    const file = await toFile(readFileSync(join(dir, "speech.wav")), "speech.wav", { type: "audio/wav" });
    const reply = await client.audio.transcriptions.create({
      file,
      model: "whisper-1",
      response_format: "verbose_json",
      language: "en",
    });
    expect(typeof reply.text).toBe("string");
    expect(reply.duration).toBeGreaterThan(speechSec - 0.5);
    const history = await unwrap(edge.client.GET("/history", { params: { query: { limit: 1 } } }));
    expect(history.jobs[0]).toMatchObject({ status: "done", params: { model_id: "remote-whisper" } });
  });
});

describe("http tier → another Voxedge's /v1 (one deployment as another's tier)", { timeout: 300_000 }, () => {
  let upstream: LocalPlatform;
  let downstream: LocalPlatform;

  beforeAll(async () => {
    upstream = await LocalPlatform.start({ allowlist: ["127.0.0.1:1"], vars: { LEASE_TTL_SEC: "10" } });
    await upstream.startNode();
    downstream = await LocalPlatform.start({
      allowlist: ["127.0.0.1:1"],
      vars: {
        LEASE_TTL_SEC: "10",
        MODEL_REGISTRY: registry(`${upstream.url}/v1/audio/transcriptions`, { api_key_env: "UPSTREAM_KEY" }),
        UPSTREAM_KEY: upstream.key,
      },
    });
  }, 600_000);

  afterAll(async () => {
    await downstream?.stop();
    await upstream?.stop();
  });

  it("an upload to the edge deployment runs on the upstream's node and lands in both histories", async () => {
    const form = new FormData();
    form.append("language", "en");
    form.append(
      "file",
      new Blob([readFileSync(join(dir, "speech.wav"))], { type: "audio/wav" }),
      "speech.wav",
    );
    const done = await downstream.settle(await upload(downstream, form), 180_000);
    expect(done.error ?? null).toBeNull();
    expect(done.status).toBe("done");
    expectRemoteResult(done.result);
    const upstreamHistory = await unwrap(
      upstream.client.GET("/history", { params: { query: { limit: 1 } } }),
    );
    expect(upstreamHistory.jobs[0]).toMatchObject({
      status: "done",
      params: { response_format: "verbose_json" },
    });
  });

  it("gives through the remote tier the transcript a node gives for the same file and model", async () => {
    const form = () => {
      const body = new FormData();
      body.append("language", "en");
      body.append(
        "file",
        new Blob([readFileSync(join(dir, "speech.wav"))], { type: "audio/wav" }),
        "speech.wav",
      );
      return body;
    };
    const [direct, remote] = await Promise.all([
      upstream.settle(await upload(upstream, form()), 180_000),
      downstream.settle(await upload(downstream, form()), 180_000),
    ]);
    expect(direct.status).toBe("done");
    expect(remote.status).toBe("done");
    const node = TranscriptionResult.parse(direct.result);
    const tier = TranscriptionResult.parse(remote.result);
    // The same model on the same node behind both: the cleaned text, language and segments agree; the
    // node's own extras (its diarizer's speakers, its raw decode) are where the tiers may differ.
    expect(tier.text).toBe(node.text);
    expect(tier.language).toBe(node.language);
    expect(tier.segments.map((segment) => segment.text)).toEqual(
      node.segments.map((segment) => segment.text),
    );
    expect(tier.has_timestamps).toBe(true);
  });
});
