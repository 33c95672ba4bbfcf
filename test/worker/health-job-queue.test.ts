import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { app } from "../../worker/app.ts";
import type { HealthResponse } from "../../worker/schemas/discovery.ts";
import { bearer, countingEnv, createKey } from "./helpers.ts";

/**
 * /health's `job_queue` is whether a publish would reach the job broker, the Queue the enqueue
 * routes send to: a send that failed shows as `reconnecting` with its text (credentials, URLs and
 * stack lines removed) on every isolate, until a later send succeeds. A refused enqueue (503) leaves
 * no task in the key's history. Real Worker, D1 and Queue; only the failing send is stood in.
 */

const brokerFailure =
  "Queue send failed: POST https://queues.internal.example/v4/accounts/abc/queues/voxedge-tasks?key=s3cr3t-key " +
  "(Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.c2VjcmV0.sig)\n" +
  "    at QueueProducer.send (worker.js:10:5)\n" +
  "    at submitTask (worker.js:99:3)";

/** The Worker's bindings with a Queue producer that refuses every message. */
const refusingQueue = {
  ...env,
  TASK_QUEUE: { send: () => Promise.reject(new Error(brokerFailure)), sendBatch: () => Promise.reject() },
} as unknown as Env;

async function request(target: Env, path: string, init: RequestInit = {}): Promise<Response> {
  return app.fetch(new Request(`http://voxedge.test${path}`, init), target, createExecutionContext());
}

async function health(): Promise<HealthResponse> {
  const response = await request(env, "/health");
  expect(response.status).toBe(200);
  return (await response.json()) as HealthResponse;
}

function enqueue(target: Env, key: string): Promise<Response> {
  const form = new FormData();
  form.append("language", "en");
  form.append("file", new File([new Uint8Array(4000).fill(7)], "clip.mp3", { type: "audio/mpeg" }));
  return request(target, "/transcribe/upload", { method: "POST", headers: bearer(key), body: form });
}

let key: string;
beforeAll(async () => {
  key = (await createKey("health-job-queue")).key;
});

describe("/health job_queue follows the task Queue's publishes", () => {
  it("is ready while no publish has failed", async () => {
    expect(await health()).toMatchObject({ job_queue: "ready", job_queue_error: "" });
  });

  it("turns reconnecting with the failed send's sanitised text, and ready again after a send succeeds", async () => {
    const refused = await enqueue(refusingQueue, key);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");

    const after = await health();
    expect(after.job_queue).toBe("reconnecting");
    expect(after.job_queue_error).toContain("Queue send failed");
    for (const secret of ["s3cr3t", "eyJhbGci", "queues.internal.example", "worker.js", " at "]) {
      expect(after.job_queue_error).not.toContain(secret);
    }

    const accepted = await enqueue(env, key);
    expect(accepted.status).toBe(200);
    expect(await health()).toMatchObject({ job_queue: "ready", job_queue_error: "" });
  });

  it("costs D1 one statement per instance per interval on the publish record, not one per enqueue", async () => {
    // every enqueue used to run an UPDATE on the one broker_status row: a statement on D1's primary
    // per task for a record that changes only when the Queue fails
    const counted = countingEnv();
    const own = (await createKey("publish-record-statements")).key;
    for (let i = 0; i < 4; i++) expect((await enqueue(counted.env, own)).status).toBe(200);
    expect(counted.statements.filter((sql) => sql.includes("broker_status")).length).toBeLessThanOrEqual(1);
    expect(await health()).toMatchObject({ job_queue: "ready", job_queue_error: "" });
  });

  it("leaves no failed task in the key's history for an enqueue refused with 503", async () => {
    const own = (await createKey("refused-enqueue")).key;
    const uploads = async () => (await env.MEDIA.list({ prefix: "uploads/" })).objects.length;
    const before = await uploads();
    expect((await enqueue(refusingQueue, own)).status).toBe(503);
    const history = await request(env, "/history", { headers: bearer(own) });
    expect(await history.json()).toMatchObject({ jobs: [], total: 0 });
    // the file it sent is not kept either: the client got no key to use it with
    expect(await uploads()).toBe(before);
  });
});
