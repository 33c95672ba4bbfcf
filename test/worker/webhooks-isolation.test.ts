import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, inject, it } from "vitest";
import { db } from "../../platform/db.ts";
import { webhookDeliveries } from "../../platform/schema.ts";
import { bearer, call, createKey, resetDispatcher } from "./helpers.ts";
import { accepted, fixtureUrl, postJson } from "./ingest-helpers.ts";
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

function receiver() {
  const name = `ok-${crypto.randomUUID().slice(0, 8)}`;
  return {
    url: fixtureUrl(`/webhook/200/${name}`),
    received: async () =>
      ((await (await fetch(fixtureUrl(`/webhook-log/${name}`))).json()) as unknown[]).length,
  };
}

async function transcribeWithWebhook(key: string, webhookUrl: string): Promise<string> {
  const response = await postJson("/transcribe", key, {
    file_url: fixtureUrl("/audio.mp3"),
    webhook_url: webhookUrl,
  });
  return (await accepted(response)).task_id;
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
