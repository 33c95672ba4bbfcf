import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, inject, it } from "vitest";
import { db } from "../../platform/db.ts";
import { webhookDeliveries } from "../../platform/schema.ts";
import { newDeliveryRow } from "../../platform/webhook-store.ts";
import worker from "../../worker/index.ts";
import {
  hostGate,
  recordHostOutcome,
  WEBHOOK_BREAKER_COOLDOWN_MS,
  WEBHOOK_BREAKER_FAILURES,
} from "../../worker/webhooks/breaker.ts";
import { attemptWebhook, WEBHOOK_MAX_UNRECORDED } from "../../worker/webhooks/deliver.ts";
import { sweepWebhooks, WEBHOOK_RESEND_AFTER_MS } from "../../worker/webhooks/sweep.ts";
import { bearer, call, createKey, resetDispatcher } from "./helpers.ts";
import { accepted, errorOf, fixtureUrl, postJson } from "./ingest-helpers.ts";
import { sampleResult, TestNode } from "./node-client.ts";

/**
 * A slow webhook target must not hold anyone else's work: task webhooks have their own Queue, a
 * batch's attempts run side by side, and a host that keeps failing is left alone for a while (the
 * circuit breaker). The tarpit (test/helpers/fixture-server.ts) is a receiver on its own port that
 * takes requests and never answers.
 */

beforeEach(resetDispatcher);

/** Generous: the Queue batches for a second, and the machine is shared with other test runs. */
const TEST_TIMEOUT_MS = 150_000;

function tarpit() {
  const name = `t-${crypto.randomUUID().slice(0, 8)}`;
  return {
    url: `${inject("tarpitOrigin")}/tarpit/${name}`,
    log: async () =>
      (await (await fetch(fixtureUrl(`/tarpit-log/${name}`))).json()) as {
        requests: number;
        abandoned: number;
      },
  };
}

function receiver(statuses = "200") {
  const name = `ok-${crypto.randomUUID().slice(0, 8)}`;
  return {
    url: fixtureUrl(`/webhook/${statuses}/${name}`),
    received: async () =>
      ((await (await fetch(fixtureUrl(`/webhook-log/${name}`))).json()) as unknown[]).length,
  };
}

function transcribe(key: string, webhookUrl: string | null): Promise<Response> {
  return postJson("/transcribe", key, {
    file_url: fixtureUrl("/audio.mp3"),
    ...(webhookUrl ? { webhook_url: webhookUrl } : {}),
  });
}

async function transcribeWithWebhook(key: string, webhookUrl: string): Promise<string> {
  return (await accepted(await transcribe(key, webhookUrl))).task_id;
}

function rowOf(taskId: string) {
  return db(env).select().from(webhookDeliveries).where(eq(webhookDeliveries.task_id, taskId)).get();
}

/** Leases and completes every task in `taskIds` (any other task leased is completed too). */
async function endAll(taskIds: string[]): Promise<void> {
  const waiting = new Set(taskIds);
  const node = new TestNode();
  for (let round = 0; waiting.size > 0; round++) {
    if (round > 200) throw new Error(`never leased: ${[...waiting].join(", ")}`);
    for (const lease of await node.lease(2, 2_000, ["transcribe"])) {
      expect((await node.complete(lease.lease_id, sampleResult())).status).toBe(204);
      waiting.delete(lease.task_id);
    }
  }
}

async function webhookStatus(taskId: string, key: string): Promise<unknown> {
  const response = await call(`/transcribe/${taskId}`, { headers: bearer(key) });
  return ((await response.json()) as { webhook_status?: unknown }).webhook_status;
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("a webhook target that never answers", { timeout: TEST_TIMEOUT_MS }, () => {
  it("40 deliveries hung on a tarpit hold neither another key's task nor its webhook", async () => {
    const slow = await createKey("tarpit owner");
    const hung = tarpit();
    const tarpitTasks: string[] = [];
    for (let i = 0; i < 40; i++) tarpitTasks.push(await transcribeWithWebhook(slow.key, hung.url));
    await endAll(tarpitTasks);
    await until(async () => (await hung.log()).requests > 0, "the first tarpit attempt");

    const other = await createKey("prompt receiver");
    const hook = receiver();
    const task = await transcribeWithWebhook(other.key, hook.url);
    await endAll([task]);
    await until(async () => (await hook.received()) === 1, "the other key's webhook");
    expect(await webhookStatus(task, other.key)).toBe("delivered");
    // It did not queue behind the hung attempts: most of them never reached the tarpit at all.
    expect((await hung.log()).requests).toBeLessThan(40);
    const pending = await db(env)
      .select({ status: webhookDeliveries.status })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.owner_key_id, slow.id));
    expect(pending.map((row) => row.status)).toEqual(Array(40).fill("pending"));
  });
});

describe("the circuit breaker of a webhook host", { timeout: TEST_TIMEOUT_MS }, () => {
  it(`opens after ${WEBHOOK_BREAKER_FAILURES} failures in a row, lets one probe through after the cool-down, closes on an answer`, async () => {
    const host = `breaker-${crypto.randomUUID().slice(0, 8)}.test`;
    const other = `other-${crypto.randomUUID().slice(0, 8)}.test`;
    const t0 = Date.now();
    for (let i = 1; i < WEBHOOK_BREAKER_FAILURES; i++) {
      await recordHostOutcome(env, host, "retry", false, t0);
      expect(await hostGate(env, host, t0)).toEqual({ open: false });
    }
    await recordHostOutcome(env, host, "retry", false, t0);
    const cooledDown = t0 + WEBHOOK_BREAKER_COOLDOWN_MS;
    expect(await hostGate(env, host, t0 + 1)).toEqual({ open: true, until: cooledDown });
    expect(await hostGate(env, other, t0 + 1)).toEqual({ open: false });

    // Cooled down: the first caller probes, the next waits for it.
    expect(await hostGate(env, host, cooledDown)).toEqual({ open: false });
    expect(await hostGate(env, host, cooledDown)).toMatchObject({ open: true });
    // The probe failed: open for another cool-down.
    await recordHostOutcome(env, host, "retry", false, cooledDown + 10);
    expect(await hostGate(env, host, cooledDown + 20)).toEqual({
      open: true,
      until: cooledDown + 10 + WEBHOOK_BREAKER_COOLDOWN_MS,
    });
    // An answer that is not a 5xx or 429 (a 400 here) shows the host alive.
    await recordHostOutcome(env, host, "refused", true, cooledDown + 30);
    expect(await hostGate(env, host, cooledDown + 40)).toEqual({ open: false });
  });

  it("an attempt to a host whose breaker is open is deferred without connecting", async () => {
    const { key } = await createKey("deferred");
    const hung = tarpit();
    const host = new URL(hung.url).host;
    const now = Date.now();
    for (let i = 0; i < WEBHOOK_BREAKER_FAILURES; i++)
      await recordHostOutcome(env, host, "retry", false, now);
    const task = await transcribeWithWebhook(key, hung.url);
    await endAll([task]);
    await until(async () => (await rowOf(task))?.attempts === 1, "the deferred attempt");
    const row = await rowOf(task);
    expect(row).toMatchObject({ status: "pending", last_http_status: null });
    expect(row?.last_error).toContain("circuit open");
    expect(row?.due_at).toBeGreaterThanOrEqual(now + WEBHOOK_BREAKER_COOLDOWN_MS);
    expect((await hung.log()).requests).toBe(0);
  });
});

describe("the per-key cap on pending webhook deliveries", { timeout: TEST_TIMEOUT_MS }, () => {
  it("refuses a new task with a webhook_url (429, Retry-After) at the cap; one without, and one once a delivery ends, are accepted", async () => {
    const { id, key } = await createKey("backlogged");
    const cap = Number(env.WEBHOOK_MAX_PENDING_PER_KEY);
    const now = Date.now();
    // `cap` ended tasks' deliveries waiting on a receiver that is down (due in a day: left alone here).
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
       INSERT INTO webhook_deliveries (task_id, owner_key_id, url, base_url, webhook_id, status, attempts, due_at, ended_at, created_at)
       SELECT 'backlog-' || ?2 || '-' || i, ?2, 'https://down.example/hook', 'http://voxedge.test', 'msg_' || i, 'pending', 3, ?3, ?4, ?4 FROM n`,
    )
      .bind(cap, id, now + 86_400_000, now)
      .run();
    const hook = receiver();

    const refused = await transcribe(key, hook.url);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect((await errorOf(refused, 429)).detail).toContain("webhook deliveries of this API key");
    const form = new URLSearchParams({ note_id: "any", voice_id: "en-male", webhook_url: hook.url });
    const content = await call("/v2/create/shorts", {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
    });
    expect(content.status).toBe(429);
    expect(((await content.json()) as { error_key: string }).error_key).toBe("webhook_backlog");
    await accepted(await transcribe(key, null));

    await db(env)
      .update(webhookDeliveries)
      .set({ status: "failed" })
      .where(eq(webhookDeliveries.task_id, `backlog-${id}-1`));
    await accepted(await transcribe(key, hook.url));
  });
});

describe("the cron sweep", { timeout: TEST_TIMEOUT_MS }, () => {
  it("re-sends a due delivery whose message is lost, then not again for a while", async () => {
    const { id } = await createKey("swept");
    const now = Date.now();
    const row = (taskId: string, sweptAt: number | null) => ({
      ...newDeliveryRow(taskId, id, { url: "https://down.example/hook", authHeader: null }, "http://x", now),
      due_at: now - 10 * 60_000,
      ended_at: now - 10 * 60_000,
      swept_at: sweptAt,
    });
    const lost = `lost-${crypto.randomUUID()}`;
    const sweptLongAgo = `swept-long-ago-${crypto.randomUUID()}`;
    const sweptRecently = `swept-recently-${crypto.randomUUID()}`;
    await db(env)
      .insert(webhookDeliveries)
      .values([
        row(lost, null),
        row(sweptLongAgo, now - WEBHOOK_RESEND_AFTER_MS - 1000),
        row(sweptRecently, now - 60_000),
      ]);
    await sweepWebhooks(env, now);
    expect((await rowOf(lost))?.swept_at).toBe(now);
    expect((await rowOf(sweptLongAgo))?.swept_at).toBe(now);
    expect((await rowOf(sweptRecently))?.swept_at).toBe(now - 60_000);
    // The next minute's sweep leaves the ones it just sent alone.
    await sweepWebhooks(env, now + 60_000);
    expect((await rowOf(lost))?.swept_at).toBe(now);
  });
});

describe("a delivery whose outcome cannot be stored", { timeout: TEST_TIMEOUT_MS }, () => {
  it(`is POSTed at most ${WEBHOOK_MAX_UNRECORDED} times after the receiver took it (2xx), then failed`, async () => {
    const { key } = await createKey("unrecorded");
    const hook = receiver("200");
    const task = await transcribeWithWebhook(key, hook.url);
    // Every write that would record a delivery fails, as a D1 outage right after the POST would.
    await env.DB.exec(
      "CREATE TRIGGER refuse_delivered BEFORE UPDATE ON webhook_deliveries WHEN NEW.status = 'delivered' BEGIN SELECT RAISE(ABORT, 'the write failed'); END",
    );
    try {
      await endAll([task]);
      await until(async () => (await hook.received()) === 1, "the first POST");
      // Each time the claim of an attempt runs out, the delivery is due again (the sweep or a retried
      // message would send it): run every such attempt at once.
      for (let i = 0; i < 10 && (await rowOf(task))?.status === "pending"; i++) {
        const dueAt = (await rowOf(task))?.due_at ?? Date.now();
        await attemptWebhook(env, task, Math.max(dueAt, Date.now())).catch(() => undefined);
      }
      expect(await hook.received()).toBeLessThanOrEqual(WEBHOOK_MAX_UNRECORDED);
      const row = await rowOf(task);
      expect(row?.status).toBe("failed");
      expect(row?.last_error).toContain("could not be recorded");
    } finally {
      await env.DB.exec("DROP TRIGGER refuse_delivered");
    }
  });
});

describe("webhook messages of the old shape on the task Queue", { timeout: TEST_TIMEOUT_MS }, () => {
  it("are forwarded to the webhook Queue and delivered", async () => {
    const { id, key } = await createKey("upgraded");
    const taskId = (await accepted(await transcribe(key, null))).task_id;
    await endAll([taskId]);
    const hook = receiver();
    const now = Date.now();
    await db(env)
      .insert(webhookDeliveries)
      .values({
        ...newDeliveryRow(taskId, id, { url: hook.url, authHeader: null }, "http://voxedge.test", now),
        due_at: now,
        ended_at: now,
      });
    const batch = createMessageBatch("voxedge-tasks", [
      { id: "old-shape", timestamp: new Date(), attempts: 1, body: { webhook_task_id: taskId } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    expect(await getQueueResult(batch, ctx)).toMatchObject({
      explicitAcks: ["old-shape"],
      retryMessages: [],
    });
    await until(async () => (await hook.received()) === 1, "the forwarded delivery");
    await until(async () => (await rowOf(taskId))?.status === "delivered", "the delivered status");
  });
});
