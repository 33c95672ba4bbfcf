import { and, eq, lte } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { workerConfig } from "../../platform/config.ts";
import { db } from "../../platform/db.ts";
import { webhookDeliveries } from "../../platform/schema.ts";
import { readPermanentTask } from "../../platform/task-store.ts";
import { sendWebhookMessage } from "../../platform/webhook-store.ts";
import { checkUrl } from "../../protocol/url-policy.ts";
import { mediaUrlMinter } from "../media/media-url.ts";
import { outboundFetch } from "../outbound-fetch.ts";
import { webhookPayload } from "./payload.ts";
import { type AttemptOutcome, nextStep } from "./retry-policy.ts";
import { signingSecrets } from "./signing-secret.ts";

/**
 * One delivery attempt of a task's webhook (a Queue message asked for it). The attempt is claimed in
 * D1 first (a duplicate message, or the sweep's, finds it not due and does nothing), its outcome is
 * written before the next attempt is asked for, so a crash anywhere leaves a due row the cron sweep
 * re-sends.
 */

type Delivery = typeof webhookDeliveries.$inferSelect;

/** A claimed attempt is not re-sent by the sweep for this long past its timeout. */
const CLAIM_MARGIN_MS = 15_000;
/** Bytes of a receiver's answer read (then the rest is dropped): the status is what matters. */
const MAX_RESPONSE_BYTES = 4096;

export async function attemptWebhook(env: Env, taskId: string, now = Date.now()): Promise<void> {
  const config = workerConfig(env);
  const claimed = await db(env)
    .update(webhookDeliveries)
    .set({ due_at: now + config.webhookTimeoutMs + CLAIM_MARGIN_MS })
    .where(
      and(
        eq(webhookDeliveries.task_id, taskId),
        eq(webhookDeliveries.status, "pending"),
        lte(webhookDeliveries.due_at, now),
      ),
    )
    .returning();
  const delivery = claimed[0];
  if (!delivery) return;
  const attempt = delivery.attempts + 1;
  const record = await readPermanentTask(env, taskId);
  if (!record || (record.status !== "done" && record.status !== "failed")) {
    await finish(env, delivery, attempt, { status: "failed", last_error: "the task is gone" });
    return;
  }
  const payload = delivery.payload ?? (await webhookPayload(record, mediaUrlMinter(env, delivery.base_url)));
  const outcome = await post(env, delivery, payload, new Date(now));
  const step = nextStep(outcome, {
    attempt,
    endedAt: delivery.ended_at ?? now,
    now: Date.now(),
    baseMs: config.webhookRetryBaseMs,
  });
  const httpStatus = outcome.kind === "answered" ? outcome.status : null;
  const error = outcome.kind === "no_answer" ? outcome.error : null;
  console.log(
    JSON.stringify({
      event: "webhook_attempt",
      task_id: taskId,
      webhook_id: delivery.webhook_id,
      attempt,
      host: safeHost(delivery.url),
      http_status: httpStatus,
      error,
      next: step.status,
    }),
  );
  const common = { payload, last_http_status: httpStatus };
  if (step.status === "pending") {
    const dueAt = Date.now() + step.delayMs;
    await finish(env, delivery, attempt, { ...common, status: "pending", due_at: dueAt, last_error: error });
    await sendWebhookMessage(env, taskId, Math.ceil(step.delayMs / 1000));
  } else if (step.status === "delivered") {
    await finish(env, delivery, attempt, { ...common, status: "delivered", last_error: null });
  } else {
    await finish(env, delivery, attempt, { ...common, status: "failed", last_error: step.reason });
  }
}

/** Writes an attempt's result (only over the claim this attempt made). */
async function finish(
  env: Env,
  delivery: Delivery,
  attempt: number,
  update: Partial<Delivery>,
): Promise<void> {
  await db(env)
    .update(webhookDeliveries)
    .set({ ...update, attempts: attempt })
    .where(
      and(eq(webhookDeliveries.task_id, delivery.task_id), eq(webhookDeliveries.attempts, delivery.attempts)),
    );
}

/** POSTs the signed payload once: no redirects, a timeout, the answer read no further than a little. */
async function post(env: Env, delivery: Delivery, payload: string, sentAt: Date): Promise<AttemptOutcome> {
  const config = workerConfig(env);
  // Checked again at every attempt: the policy (or its allowlist) may have changed since the request.
  const verdict = checkUrl(delivery.url, { allowlist: config.urlAllowlist });
  if (!verdict.ok) return { kind: "blocked", reason: `webhook_url refused: ${verdict.reason}` };
  const secrets = await signingSecrets(env, delivery.owner_key_id);
  const signature = secrets
    .map((secret) => new Webhook(secret).sign(delivery.webhook_id, sentAt, payload))
    .join(" ");
  const headers = new Headers({
    "content-type": "application/json",
    "user-agent": "voxedge-webhooks/1",
    "webhook-id": delivery.webhook_id,
    "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
    "webhook-signature": signature,
  });
  if (delivery.auth_header_name && delivery.auth_header_value !== null) {
    headers.set(delivery.auth_header_name, delivery.auth_header_value);
  }
  try {
    const response = await outboundFetch(env)(verdict.url, {
      method: "POST",
      headers,
      body: payload,
      redirect: "manual",
      signal: AbortSignal.timeout(config.webhookTimeoutMs),
    });
    await drain(response);
    return { kind: "answered", status: response.status };
  } catch (cause) {
    const timedOut = cause instanceof Error && (cause.name === "TimeoutError" || cause.name === "AbortError");
    return { kind: "no_answer", error: timedOut ? "timed out" : `no answer: ${String(cause)}` };
  }
}

/** Reads at most MAX_RESPONSE_BYTES of an answer and drops the rest. */
async function drain(response: Response): Promise<void> {
  const reader = response.body?.getReader();
  if (!reader) return;
  let read = 0;
  try {
    while (read < MAX_RESPONSE_BYTES) {
      const chunk = await reader.read();
      if (chunk.done) return;
      read += chunk.value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function safeHost(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}
