import { createMessageBatch } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { beforeEach, describe, expect, it } from "vitest";
import { db } from "../../platform/db.ts";
import { apiKeys, webhookDeliveries } from "../../platform/schema.ts";
import type { Lease } from "../../protocol/node.ts";
import type { TaskKind } from "../../protocol/task.ts";
import { newWebhookSecret } from "../../worker/auth/key-material.ts";
import worker from "../../worker/index.ts";
import type { PresignResponse } from "../../worker/schemas/uploads.ts";
import { ROTATION_GRACE_MS } from "../../worker/webhooks/signing-secret.ts";
import { bearer, call, createKey, resetDispatcher } from "./helpers.ts";
import { accepted, bytes, callMinted, errorOf, fixtureUrl, postJson } from "./ingest-helpers.ts";
import { sampleResult, TestNode } from "./node-client.ts";

/**
 * Task webhooks in workerd: tasks end through the real node routes, the real Queue consumer attempts
 * the delivery, and the fixture server's receiver (test/helpers/fixture-server.ts) answers and records
 * it. Retries are made due at once (as if their backoff had passed) instead of waiting for it.
 */

beforeEach(resetDispatcher);

/** Generous: deliveries go through the real Queue (one-second batches) on a machine shared with others. */
const TEST_TIMEOUT_MS = 120_000;

interface Received {
  headers: Record<string, string>;
  body: string;
  answered: number;
}

let receivers = 0;
/** A fresh receiver answering `statuses` in turn; returns its URL and a reader of what it got. */
function receiver(statuses: string) {
  const name = `r${++receivers}-${crypto.randomUUID().slice(0, 8)}`;
  return {
    url: fixtureUrl(`/webhook/${statuses}/${name}`),
    received: async (): Promise<Received[]> =>
      (await fetch(fixtureUrl(`/webhook-log/${name}`))).json() as Promise<Received[]>,
  };
}

async function sttView(taskId: string, key: string): Promise<Record<string, unknown>> {
  const response = await call(`/transcribe/${taskId}`, { headers: bearer(key) });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

async function contentView(taskId: string, key: string): Promise<Record<string, unknown>> {
  const response = await call(`/v1/create/tasks/${taskId}/result`, { headers: bearer(key) });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

/** Polls a view until `done` holds (generous: the Queue batches for a second, the machine is shared). */
async function until(
  read: () => Promise<Record<string, unknown>>,
  done: (view: Record<string, unknown>) => boolean,
  timeoutMs = 60_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const view = await read();
    if (done(view)) return view;
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${JSON.stringify(view)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const attempted = (view: Record<string, unknown>) => view.webhook_last_http_status != null;
const settled = (view: Record<string, unknown>) =>
  view.webhook_status === "delivered" || view.webhook_status === "failed";

/** Makes a pending delivery due now and hands the consumer its message, as its delayed retry would. */
async function retryNow(taskId: string): Promise<void> {
  await db(env)
    .update(webhookDeliveries)
    .set({ due_at: Date.now() })
    .where(eq(webhookDeliveries.task_id, taskId));
  const batch = createMessageBatch("voxedge-webhooks", [
    {
      id: `webhook-${crypto.randomUUID()}`,
      timestamp: new Date(),
      attempts: 1,
      body: { webhook_task_id: taskId },
    },
  ]);
  await worker.queue(batch, env);
}

/** Leases `taskId` (failing stray tasks of earlier tests out of the way). */
async function leaseTask(node: TestNode, taskId: string, kinds: TaskKind[]): Promise<Lease> {
  for (let i = 0; i < 20; i++) {
    const [lease] = await node.lease(1, 5_000, kinds);
    if (!lease) break;
    if (lease.task_id === taskId) return lease;
    await node.fail(lease.lease_id, "invalid_params", "a stray task of an earlier test");
  }
  throw new Error(`task ${taskId} was never leased`);
}

async function transcribeWithWebhook(key: string, fields: Record<string, string>) {
  return accepted(await postJson("/transcribe", key, { file_url: fixtureUrl("/audio.mp3"), ...fields }));
}

async function secretOf(keyId: string): Promise<string> {
  const row = await db(env)
    .select({ secret: apiKeys.webhookSecret })
    .from(apiKeys)
    .where(eq(apiKeys.id, keyId))
    .get();
  if (!row?.secret) throw new Error(`key ${keyId} has no webhook secret`);
  return row.secret;
}

/** Verifies a received delivery's signature with `secret` (Standard Webhooks); throws if it does not match. */
function verify(secret: string, delivery: Received): unknown {
  return new Webhook(secret).verify(delivery.body, {
    "webhook-id": delivery.headers["webhook-id"] ?? "",
    "webhook-timestamp": delivery.headers["webhook-timestamp"] ?? "",
    "webhook-signature": delivery.headers["webhook-signature"] ?? "",
  });
}

describe("STT task webhooks", { timeout: TEST_TIMEOUT_MS }, () => {
  it("a done task: pending, then delivered (200) to the receiver, signed, with the task's status", async () => {
    const { id, key } = await createKey();
    const hook = receiver("200");
    const task = await transcribeWithWebhook(key, {
      webhook_url: hook.url,
      webhook_auth_header_name: "X-Receiver-Token",
      webhook_auth_header_value: "let me in",
    });
    const before = await sttView(task.task_id, key);
    expect(before).toMatchObject({
      status: "queued",
      webhook_status: "pending",
      webhook_last_http_status: null,
    });
    expect(JSON.stringify(before)).not.toContain("let me in");

    const node = new TestNode();
    const lease = await leaseTask(node, task.task_id, ["transcribe"]);
    expect((await node.complete(lease.lease_id, sampleResult("xin chào"))).status).toBe(204);

    const view = await until(() => sttView(task.task_id, key), settled);
    expect(view).toMatchObject({
      status: "done",
      webhook_status: "delivered",
      webhook_last_http_status: 200,
    });
    const [delivery, ...more] = await hook.received();
    expect(more).toEqual([]);
    expect(delivery?.headers["x-receiver-token"]).toBe("let me in");
    expect(delivery?.headers["content-type"]).toBe("application/json");
    const payload = verify(await secretOf(id), delivery as Received);
    expect(payload).toMatchObject({
      type: "task.done",
      kind: "transcribe",
      task_id: task.task_id,
      status: "done",
      result: { text: "xin chào" },
    });
  });

  it("a failed task: retried with the same webhook-id while 503, pending with the last status, then failed on a 400", async () => {
    const { key } = await createKey();
    const hook = receiver("503,503,503,400");
    const task = await transcribeWithWebhook(key, { webhook_url: hook.url });
    const node = new TestNode();
    const lease = await leaseTask(node, task.task_id, ["transcribe"]);
    expect((await node.fail(lease.lease_id, "unsupported_media", "not audio")).status).toBe(200);

    // The first retry waits at least a second, so the first attempt's outcome is seen while pending.
    const first = await until(() => sttView(task.task_id, key), attempted);
    expect(first).toMatchObject({
      status: "failed",
      webhook_status: "pending",
      webhook_last_http_status: 503,
    });

    const view = await until(async () => {
      await retryNow(task.task_id);
      return sttView(task.task_id, key);
    }, settled);
    expect(view).toMatchObject({ webhook_status: "failed", webhook_last_http_status: 400 });
    const received = await hook.received();
    expect(received.map((r) => r.answered)).toEqual([503, 503, 503, 400]);
    expect(new Set(received.map((r) => r.headers["webhook-id"])).size).toBe(1);
    expect(new Set(received.map((r) => r.body)).size).toBe(1);
    expect(JSON.parse(received[0]?.body ?? "{}")).toMatchObject({
      type: "task.failed",
      task_id: task.task_id,
      status: "failed",
      error_code: "unsupported_media",
    });
    // Given up: another message sends nothing more.
    await retryNow(task.task_id);
    expect(await hook.received()).toHaveLength(4);
  });

  it("deleting a task removes its delivery: a queued one, and an ended one still retrying", async () => {
    const { key } = await createKey();
    const hook = receiver("503");
    const rowOf = (taskId: string) =>
      db(env).select().from(webhookDeliveries).where(eq(webhookDeliveries.task_id, taskId)).get();

    const queued = await transcribeWithWebhook(key, { webhook_url: hook.url });
    expect(await rowOf(queued.task_id)).toBeDefined();
    expect(
      (await call(`/transcribe/${queued.task_id}`, { method: "DELETE", headers: bearer(key) })).status,
    ).toBe(204);
    expect(await rowOf(queued.task_id)).toBeUndefined();

    const ended = await transcribeWithWebhook(key, { webhook_url: hook.url });
    const node = new TestNode();
    const lease = await leaseTask(node, ended.task_id, ["transcribe"]);
    await node.complete(lease.lease_id, sampleResult());
    await until(() => sttView(ended.task_id, key), attempted);
    expect(
      (await call(`/transcribe/${ended.task_id}`, { method: "DELETE", headers: bearer(key) })).status,
    ).toBe(204);
    expect(await rowOf(ended.task_id)).toBeUndefined();
    const sent = (await hook.received()).length;
    await retryNow(ended.task_id);
    expect(await hook.received()).toHaveLength(sent);
  });

  it("/transcribe/upload (form fields) and /transcribe/object accept the webhook fields and refuse bad ones with 400", async () => {
    const { key } = await createKey();
    const hook = receiver("200");
    const upload = (fields: Record<string, string>) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      form.append("file", new File([bytes(4096, 3)], "talk.mp3", { type: "audio/mpeg" }));
      return call("/transcribe/upload", { method: "POST", headers: bearer(key), body: form });
    };
    const fromUpload = await accepted(
      await upload({
        webhook_url: hook.url,
        webhook_auth_header_name: "Authorization",
        webhook_auth_header_value: "Bearer t",
      }),
    );
    expect(await sttView(fromUpload.task_id, key)).toMatchObject({ webhook_status: "pending" });
    const badFields: Record<string, string>[] = [
      { webhook_url: "http://169.254.169.254/latest/meta-data/" },
      { webhook_url: "ftp://example.com/hook" },
      {
        webhook_url: hook.url,
        webhook_auth_header_name: "webhook-signature",
        webhook_auth_header_value: "x",
      },
      { webhook_url: hook.url, webhook_auth_header_name: "X-Token" },
      { webhook_auth_header_name: "X-Token", webhook_auth_header_value: "x" },
    ];
    for (const bad of badFields) {
      expect((await errorOf(await upload(bad), 400)).code, JSON.stringify(bad)).toBe("bad_request");
    }

    const presign = await postJson("/uploads/presign", key, {
      filename: "talk.mp3",
      content_type: "audio/mpeg",
    });
    const presigned = (await presign.json()) as PresignResponse;
    const data = bytes(2048, 4);
    const put = await callMinted(presigned.upload_url, {
      method: "PUT",
      headers: { "content-type": "audio/mpeg", "content-length": String(data.byteLength) },
      body: data,
    });
    expect(put.status).toBe(200);
    const object = (fields: Record<string, unknown>) =>
      postJson("/transcribe/object", key, { object_key: presigned.object_key, ...fields });
    expect((await errorOf(await object({ webhook_url: "http://10.0.0.7/hook" }), 400)).code).toBe(
      "bad_request",
    );
    expect(
      (await errorOf(await object({ webhook_url: hook.url, webhook_auth_header_value: "a\r\nb" }), 400)).code,
    ).toBe("bad_request");
    const fromObject = await accepted(await object({ webhook_url: hook.url }));
    expect(await sttView(fromObject.task_id, key)).toMatchObject({ webhook_status: "pending" });
  });
});

describe("content task webhooks", { timeout: TEST_TIMEOUT_MS }, () => {
  async function note(key: string): Promise<string> {
    const response = await postJson("/v1/notes", key, { content: "The Mekong flows through six countries." });
    expect(response.status).toBe(201);
    return ((await response.json()) as { note_id: string }).note_id;
  }

  function createForm(path: string, key: string, fields: Record<string, string>) {
    return call(`/v2/create/${path}`, {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
  }

  async function created(response: Response): Promise<string> {
    const body = (await response.json()) as { data: { task_id: string } };
    expect(response.status, JSON.stringify(body)).toBe(200);
    return body.data.task_id;
  }

  it("a short delivers SUCCESS with its data, a slide deck FAILURE with its error_key, as the poll shows them", async () => {
    const { key } = await createKey();
    const noteId = await note(key);
    const hook = receiver("200");
    const short = await created(
      await createForm("shorts", key, { note_id: noteId, voice_id: "en-male", webhook_url: hook.url }),
    );
    const deck = await created(
      await createForm("slide", key, { note_id: noteId, template_id: "slide-clean", webhook_url: hook.url }),
    );
    expect(await contentView(short, key)).toEqual({
      status: "PENDING",
      webhook_status: "pending",
      webhook_last_http_status: null,
    });

    const node = new TestNode();
    const shortLease = await leaseTask(node, short, ["shorts"]);
    const video = bytes(5_000, 5);
    const stored = (await (
      await node.uploadOutput(shortLease.lease_id, "short.mp4", video, "video/mp4")
    ).json()) as Record<string, unknown>;
    const done = await node.complete(
      shortLease.lease_id,
      {
        note_id: noteId,
        title: "The Mekong",
        language: "en",
        duration: 20,
        outputs: [{ role: "video", ...stored }],
      },
      "shorts",
    );
    expect(done.status).toBe(204);
    const deckLease = await leaseTask(node, deck, ["slide"]);
    expect((await node.fail(deckLease.lease_id, "invalid_params", "no deck")).status).toBe(200);

    const shortView = await until(() => contentView(short, key), settled);
    const deckView = await until(() => contentView(deck, key), settled);
    expect(shortView).toMatchObject({
      status: "SUCCESS",
      webhook_status: "delivered",
      webhook_last_http_status: 200,
    });
    expect(deckView).toMatchObject({ status: "FAILURE", webhook_status: "delivered" });
    const payloads = (await hook.received()).map((r) => JSON.parse(r.body) as Record<string, unknown>);
    expect(payloads).toHaveLength(2);
    const byTask = new Map(payloads.map((p) => [p.task_id, p]));
    expect(byTask.get(short)).toMatchObject({
      type: "task.done",
      kind: "shorts",
      status: "SUCCESS",
      data: { note_id: noteId, title: "The Mekong", type: "shorts" },
    });
    expect(byTask.get(deck)).toMatchObject({
      type: "task.failed",
      kind: "slide",
      status: "FAILURE",
      error_key: deckView.error_key,
    });
  });

  it("refuses a bad webhook form field with 400 invalid_webhook", async () => {
    const { key } = await createKey();
    const noteId = await note(key);
    for (const webhook_url of ["http://127.0.0.2:9/hook", "not a url"]) {
      const response = await createForm("shorts", key, { note_id: noteId, voice_id: "en-male", webhook_url });
      const body = (await response.json()) as { error_key: string };
      expect(response.status).toBe(400);
      expect(body.error_key).toBe("invalid_webhook");
    }
  });
});

describe("webhook signing secret rotation", { timeout: TEST_TIMEOUT_MS }, () => {
  it("signs with both secrets during the grace after a rotation, with the new one alone after it", async () => {
    const { id, key } = await createKey();
    const oldSecret = newWebhookSecret();
    const newSecret = newWebhookSecret();
    const rotate = (rotatedAt: number) =>
      db(env)
        .update(apiKeys)
        .set({
          webhookSecret: newSecret,
          webhookSecretPrevious: oldSecret,
          webhookSecretRotatedAt: rotatedAt,
        })
        .where(eq(apiKeys.id, id));

    async function deliveredOnce(): Promise<Received> {
      const hook = receiver("200");
      const task = await transcribeWithWebhook(key, { webhook_url: hook.url });
      const node = new TestNode();
      const lease = await leaseTask(node, task.task_id, ["transcribe"]);
      await node.complete(lease.lease_id, sampleResult());
      await until(() => sttView(task.task_id, key), settled);
      const [delivery] = await hook.received();
      if (!delivery) throw new Error("nothing delivered");
      return delivery;
    }

    await rotate(Date.now());
    const inGrace = await deliveredOnce();
    expect(inGrace.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    expect(verify(newSecret, inGrace)).toBeTruthy();
    expect(verify(oldSecret, inGrace)).toBeTruthy();

    await rotate(Date.now() - ROTATION_GRACE_MS - 1000);
    const afterGrace = await deliveredOnce();
    expect(afterGrace.headers["webhook-signature"]?.split(" ")).toHaveLength(1);
    expect(verify(newSecret, afterGrace)).toBeTruthy();
    expect(() => verify(oldSecret, afterGrace)).toThrow();
  });
});
