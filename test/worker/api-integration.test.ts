import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { db } from "../../platform/db.ts";
import { jobs } from "../../platform/schema.ts";
import { app } from "../../worker/app.ts";
import type { HistoryPage } from "../../worker/schemas/history.ts";
import {
  bearer,
  call,
  createKey,
  createTranscription,
  deliver,
  NODE_TOKEN,
  resetDispatcher,
} from "./helpers.ts";
import { sampleResult, TestNode } from "./node-client.ts";

beforeEach(resetDispatcher);

async function history(key: string, query = ""): Promise<HistoryPage> {
  const response = await call(`/history${query}`, { headers: bearer(key) });
  expect(response.status).toBe(200);
  return (await response.json()) as HistoryPage;
}

describe("GET /history", () => {
  it("lists only the caller's jobs, newest first, with total ignoring paging", async () => {
    const mine = await createKey("mine");
    const theirs = await createKey("theirs");
    const created = [];
    for (let i = 0; i < 5; i++) {
      created.push(await createTranscription(mine.id));
      await new Promise((r) => setTimeout(r, 2));
    }
    await createTranscription(theirs.id);
    await db(env)
      .insert(jobs)
      .values({
        task_id: "legacy-ownerless",
        owner_key_id: null,
        kind: "transcribe",
        status: "done",
        source: { type: "none" },
        created_at: Date.now(),
        updated_at: Date.now(),
      });

    const page = await history(mine.key, "?limit=2&skip=1");
    expect(page.total).toBe(5);
    expect(page.limit).toBe(2);
    expect(page.skip).toBe(1);
    expect(page.jobs.map((j) => j.task_id)).toEqual([created[3]!.task_id, created[2]!.task_id]);
    expect(page.jobs[0]).toMatchObject({
      status: "queued",
      params: { model_id: "whisper-base", language: null, context: "" },
      result: null,
      error: null,
    });
    expect(page.jobs[0]?.created_at).toBeCloseTo(created[3]!.created_at / 1000, 3);
    const all = await history(mine.key, "?limit=100");
    expect(all.jobs.map((j) => j.task_id)).not.toContain("legacy-ownerless");
    expect(all.jobs).toHaveLength(5);
  });

  it("clamps limit to 1..100 and defaults to 20/0", async () => {
    const { key } = await createKey();
    expect(await history(key)).toMatchObject({ limit: 20, skip: 0, total: 0, jobs: [] });
    expect((await history(key, "?limit=1000")).limit).toBe(100);
    expect((await history(key, "?limit=0")).limit).toBe(1);
    expect((await history(key, "?limit=-5")).limit).toBe(1);
  });

  it("filters by status", async () => {
    const { id, key } = await createKey();
    const doneTask = await createTranscription(id);
    const queuedTask = await createTranscription(id);
    await deliver([doneTask.task_id]);
    const node = new TestNode();
    const [lease] = await node.lease();
    await node.complete(lease!.lease_id, sampleResult("finished"));

    const done = await history(key, "?status=done");
    expect(done.total).toBe(1);
    expect(done.jobs[0]).toMatchObject({ task_id: doneTask.task_id, result: { text: "finished" } });
    const queued = await history(key, "?status=queued");
    expect(queued.jobs.map((j) => j.task_id)).toEqual([queuedTask.task_id]);
  });

  it("answers 422 in the HTTPValidationError shape for bad query values", async () => {
    const { key } = await createKey();
    for (const [query, loc] of [
      ["?skip=-1", ["query", "skip"]],
      ["?limit=abc", ["query", "limit"]],
      ["?status=finished", ["query", "status"]],
    ] as const) {
      const response = await call(`/history${query}`, { headers: bearer(key) });
      expect(response.status).toBe(422);
      const body = (await response.json()) as {
        code: string;
        detail: { loc: unknown[]; msg: string; type: string }[];
      };
      expect(body.code).toBe("validation_error");
      expect(body.detail[0]?.loc).toEqual(loc);
      expect(typeof body.detail[0]?.msg).toBe("string");
      expect(typeof body.detail[0]?.type).toBe("string");
    }
  });
});

describe("request validation on JSON bodies", () => {
  const nodePost = (body: string) =>
    call("/internal/v1/lease", {
      method: "POST",
      headers: { authorization: `Bearer ${NODE_TOKEN}`, "content-type": "application/json" },
      body,
    });

  it("gives 422 for malformed JSON", async () => {
    const response = await nodePost("{not json");
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({
      code: "validation_error",
      detail: [{ loc: ["body"], msg: "Malformed JSON in request body", type: "json_invalid" }],
    });
  });

  it("rejects unknown fields and names missing ones", async () => {
    const response = await nodePost(JSON.stringify({ capacity: 1, surprise: true }));
    expect(response.status).toBe(422);
    const body = (await response.json()) as { detail: { loc: unknown[]; type: string; msg: string }[] };
    expect(body.detail).toContainEqual({
      loc: ["body", "surprise"],
      msg: "Extra inputs are not permitted",
      type: "extra_forbidden",
    });
    expect(body.detail).toContainEqual({ loc: ["body", "node"], msg: "Field required", type: "missing" });
  });
});

describe("GET /health and GET /models", () => {
  it("answers with no nodes when the scheduler is unreachable, logging the exception only on the server", async () => {
    const internals = "connect ECONNREFUSED 10.0.3.7:443 (dispatcher shard 12, token=abc123)";
    const broken = {
      ...env,
      DISPATCHER: {
        idFromName: (name: string) => env.DISPATCHER.idFromName(name),
        get: () => ({ liveNodes: () => Promise.reject(new Error(internals)) }),
      },
    } as unknown as Env;
    const log = vi.spyOn(console, "error");
    try {
      const response = await app.fetch(
        new Request("http://voxedge.test/health"),
        broken,
        createExecutionContext(),
      );
      expect(response.status).toBe(200);
      const text = await response.text();
      // the job broker is the Queue, not the Dispatcher (health-job-queue.test.ts)
      expect(JSON.parse(text)).toMatchObject({
        status: "ok",
        gpu_free_gb: 0,
        job_queue: "ready",
        job_queue_error: "",
      });
      expect(text).not.toContain("ECONNREFUSED");
      expect(text).not.toContain("abc123");
      expect(log.mock.calls.flat().join(" ")).toContain(internals);
    } finally {
      log.mockRestore();
    }
  });

  it("reports engine state from the freshest node heartbeat", async () => {
    const before = (await (await call("/health")).json()) as Record<string, unknown>;
    expect(before).toEqual({
      status: "ok",
      asr_model: "whisper-base",
      asr_synthetic: false,
      asr_fix_command: "",
      asr_loaded: false,
      gpu_free_gb: 0,
      busy: false,
      mt_loaded: false,
      mt_model: "",
      job_queue: "ready",
      job_queue_error: "",
    });
    expect((await (await call("/models")).json()) as unknown).toMatchObject({
      default_model: "whisper-base",
      models: [{ id: "whisper-base", kind: "local_base", ready: false }],
    });

    const node = new TestNode({
      node_id: "gpu-1",
      asr_loaded: true,
      asr_model: "whisper-base",
      models_ready: ["whisper-base"],
      gpu_free_gb: 11.5,
      mt_loaded: true,
      mt_model: "libretranslate",
      mt_pairs: [["vi", "en"]],
    });
    await node.lease(1, 0);
    const after = (await (await call("/health")).json()) as Record<string, unknown>;
    // a batch node is no streaming engine: asr_loaded stays false (health-model-state.test.ts)
    expect(after).toMatchObject({
      asr_loaded: false,
      gpu_free_gb: 11.5,
      mt_loaded: true,
      mt_model: "libretranslate",
    });
    const models = (await (await call("/models")).json()) as { models: { ready: boolean }[] };
    expect(models.models[0]).toMatchObject({
      ready: true,
      synthetic: false,
      label: "Whisper base (multilingual)",
    });
  });

  it("names a synthetic model as such, with the command that fixes it", async () => {
    await new TestNode({ node_id: "laptop", asr_synthetic: true }).lease(1, 0);
    const health = (await (await call("/health")).json()) as Record<string, unknown>;
    expect(health).toMatchObject({
      asr_model: "whisper-base",
      asr_synthetic: true,
      asr_fix_command: "npm run model:download -- base",
    });
    const models = (await (await call("/models")).json()) as { models: Record<string, unknown>[] };
    expect(models.models[0]).toMatchObject({
      id: "whisper-base",
      ready: true,
      synthetic: true,
      label:
        "Synthetic stand-in for Whisper base (multilingual) (random weights: transcripts are noise). " +
        "Fix: npm run model:download -- base, then restart the node.",
    });
  });
});

describe("what API users expect besides the spec", () => {
  it("echoes x-request-id, or makes one", async () => {
    const echoed = await call("/health", { headers: { "x-request-id": "req-123" } });
    expect(echoed.headers.get("x-request-id")).toBe("req-123");
    const made = await call("/health");
    expect(made.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("answers CORS preflights on the public API", async () => {
    const response = await call("/history", {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");
  });

  it("gives unknown routes a JSON 404", async () => {
    const response = await call("/nope");
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: "no such route", code: "not_found" });
  });

  it("serves an OpenAPI document of the public routes and a docs page", async () => {
    const doc = (await (await call("/openapi.json")).json()) as {
      paths: Record<string, unknown>;
      components: { schemas: Record<string, unknown> };
    };
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/",
      "/api/v1/languages",
      "/api/v1/session/create",
      "/api/v1/session/{conversation_id}",
      "/api/v1/session/{conversation_id}/control",
      "/api/v1/session/{conversation_id}/transcript",
      "/api/v1/session/{conversation_id}/transcript/note",
      "/api/v1/ws/single",
      "/api/v1/ws/{conversation_id}",
      "/health",
      "/history",
      "/media/{object_key}",
      "/models",
      "/transcribe",
      "/transcribe/object",
      "/transcribe/upload",
      "/transcribe/{task_id}",
      "/transcribe/{task_id}/subtitles",
      "/uploads/presign",
      "/uploads/put/{object_key}",
      "/v1/audio/transcriptions",
      "/v1/audio/translations",
      "/v1/auth/tokens",
      "/v1/backgrounds",
      "/v1/catalog/previews/{file}",
      "/v1/community/notes",
      "/v1/create/tasks/{task_id}",
      "/v1/create/tasks/{task_id}/result",
      "/v1/models",
      "/v1/models/{model}",
      "/v1/notes",
      "/v1/notes/{note_id}",
      "/v1/notes/{note_id}/publish",
      "/v1/notes/{note_id}/unpublish",
      "/v1/realtime",
      "/v1/realtime/client_secrets",
      "/v1/speakers",
      "/v1/speakers/{speaker_id}",
      "/v1/templates",
      "/v1/voices",
      "/v2/create/flashcards",
      "/v2/create/mindmap",
      "/v2/create/podcast",
      "/v2/create/quiz",
      "/v2/create/quiz-video",
      "/v2/create/shorts",
      "/v2/create/slide",
      "/v2/create/study-guide",
      "/v2/create/translation",
      "/v2/create/video-overview",
      "/ws",
    ]);
    for (const name of [
      "TaskStatusResponse",
      "TaskAccepted",
      "TranscribeUrlRequest",
      "TranscribeObjectRequest",
      "UploadForm",
      "PresignRequest",
      "PresignResponse",
      "QueueStats",
      "HistoryPage",
      "HealthResponse",
      "HTTPValidationError",
      "OpenAITranscriptionForm",
      "OpenAITranslationForm",
      "OpenAITranscriptionVerbose",
      "OpenAIError",
      "LanguagesResponse",
      "SessionCreateRequest",
      "SessionCreateResponse",
      "SessionDetails",
      "TranslationError",
    ]) {
      expect(doc.components.schemas).toHaveProperty(name);
    }
    const page = await call("/docs");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("/openapi.json");
  });
});
