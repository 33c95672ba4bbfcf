import { and, eq, lte, sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { workerConfig } from "../../platform/config.ts";
import { db } from "../../platform/db.ts";
import { webhookDeliveries } from "../../platform/schema.ts";
import { jobState } from "../../platform/stubs.ts";
import { readPermanentTask } from "../../platform/task-store.ts";
import { sendWebhookMessage } from "../../platform/webhook-store.ts";
import { checkUrl } from "../../protocol/url-policy.ts";
import { mediaUrlMinter } from "../media/media-url.ts";
import { outboundFetch } from "../outbound-fetch.ts";
import { hostGate, recordHostOutcome, WEBHOOK_BREAKER_FAILURES } from "./breaker.ts";
import { webhookPayload } from "./payload.ts";
import { type AttemptOutcome, classifyAttempt, describeOutcome, nextStep } from "./retry-policy.ts";
import { signingSecrets } from "./signing-secret.ts";

/**
 * One delivery attempt of a task's webhook (a Queue message asked for it). The attempt is claimed in
 * D1 first (a duplicate message, or the sweep's, finds it not due and does nothing), its outcome is
 * written before the next attempt is asked for, so a crash anywhere leaves a due row the cron sweep
 * re-sends. A claim whose outcome was never written (the write failed after the POST) is counted by
 * the next claim, and WEBHOOK_MAX_UNRECORDED of them end the delivery: a receiver that answered 2xx
 * is not sent the same payload again and again.
 */

type Delivery = typeof webhookDeliveries.$inferSelect;

/** A claimed attempt is not re-sent by the sweep for this long past its timeout. */
const CLAIM_MARGIN_MS = 15_000;
/** Bytes of a receiver's answer read (then the rest is dropped): the status is what matters. */
const MAX_RESPONSE_BYTES = 4096;
/** Attempts whose outcome could not be recorded after which the delivery is failed, not sent again. */
export const WEBHOOK_MAX_UNRECORDED = 3;

export async function attemptWebhook(env: Env, taskId: string, now = Date.now()): Promise<void> {
  const config = workerConfig(env);
  const delivery = await claim(env, taskId, now, now + config.webhookTimeoutMs + CLAIM_MARGIN_MS);
  if (!delivery) return;
  const attempt = delivery.attempts + 1;
  if (delivery.unrecorded_attempts >= WEBHOOK_MAX_UNRECORDED) {
    const last_error = `gave up: the outcome of ${delivery.unrecorded_attempts} attempts could not be recorded (the receiver may have had them; it dedupes on webhook-id)`;
    await finish(env, delivery, { status: "failed", last_error });
    return;
  }
  const record = await readPermanentTask(env, taskId);
  if (!record || (record.status !== "done" && record.status !== "failed")) {
    await finish(env, delivery, { attempts: attempt, status: "failed", last_error: "the task is gone" });
    return;
  }
  const payload = delivery.payload ?? (await webhookPayload(record, mediaUrlMinter(env, delivery.base_url)));
  const host = hostOf(delivery.url);
  const outcome = await attemptOnce(env, delivery, payload, host, new Date(now));
  const step = nextStep(outcome, {
    attempt,
    endedAt: delivery.ended_at ?? now,
    now: Date.now(),
    baseMs: config.webhookRetryBaseMs,
  });
  const httpStatus = outcome.kind === "answered" ? outcome.status : null;
  const error = outcome.kind === "answered" ? null : describeOutcome(outcome);
  console.log(
    JSON.stringify({
      event: "webhook_attempt",
      task_id: taskId,
      webhook_id: delivery.webhook_id,
      attempt,
      host,
      http_status: httpStatus,
      error,
      next: step.status,
    }),
  );
  // A deferred attempt sent nothing: the last answer the receiver gave stays the one shown.
  const common = {
    attempts: attempt,
    payload,
    last_http_status: outcome.kind === "deferred" ? delivery.last_http_status : httpStatus,
  };
  if (step.status === "pending") {
    const dueAt = Date.now() + step.delayMs;
    await finish(env, delivery, {
      ...common,
      status: "pending",
      due_at: dueAt,
      last_error: error,
    });
    await sendWebhookMessage(env, taskId, Math.ceil(step.delayMs / 1000));
  } else if (step.status === "delivered") {
    await finish(env, delivery, { ...common, status: "delivered", last_error: null });
  } else {
    await finish(env, delivery, { ...common, status: "failed", last_error: step.reason });
  }
  if (host && outcome.kind !== "deferred") await countForHost(env, host, outcome);
}

/**
 * Claims a due delivery's attempt: not due again until `claimUntil`, and a previous claim still
 * standing (its outcome never written) counted as unrecorded. Undefined when it is not due.
 */
async function claim(
  env: Env,
  taskId: string,
  now: number,
  claimUntil: number,
): Promise<Delivery | undefined> {
  const claimed = await db(env)
    .update(webhookDeliveries)
    .set({
      due_at: claimUntil,
      claimed_at: now,
      unrecorded_attempts: sql`${webhookDeliveries.unrecorded_attempts} + (${webhookDeliveries.claimed_at} IS NOT NULL)`,
    })
    .where(
      and(
        eq(webhookDeliveries.task_id, taskId),
        eq(webhookDeliveries.status, "pending"),
        lte(webhookDeliveries.due_at, now),
      ),
    )
    .returning();
  return claimed[0];
}

/**
 * Writes an attempt's result and releases the claim (only over the claim this attempt made), then
 * shows it in the task's JobState entry, where polls read it.
 */
async function finish(env: Env, delivery: Delivery, update: Partial<Delivery>): Promise<void> {
  const written = await db(env)
    .update(webhookDeliveries)
    .set({ ...update, claimed_at: null, swept_at: null })
    .where(
      and(
        eq(webhookDeliveries.task_id, delivery.task_id),
        eq(webhookDeliveries.attempts, delivery.attempts),
        eq(webhookDeliveries.claimed_at, delivery.claimed_at ?? 0),
      ),
    )
    .returning({ status: webhookDeliveries.status, http: webhookDeliveries.last_http_status });
  const shown = written[0];
  if (shown) {
    await jobState(env, delivery.task_id).setWebhookState({
      webhook_status: shown.status,
      webhook_last_http_status: shown.http,
    });
  }
}

/** Counts an attempt against its host's breaker; a failure to do so only logs (the outcome is stored). */
async function countForHost(env: Env, host: string, outcome: AttemptOutcome): Promise<void> {
  try {
    await recordHostOutcome(env, host, classifyAttempt(outcome), outcome.kind === "answered", Date.now());
  } catch (cause) {
    console.error(JSON.stringify({ event: "webhook_breaker_error", host, error: String(cause) }));
  }
}

/**
 * One attempt: the SSRF guard (checked again every time: the policy or its allowlist may have
 * changed), the host's circuit breaker, then the signed POST: no redirects, a timeout, the answer
 * read no further than a little.
 */
async function attemptOnce(
  env: Env,
  delivery: Delivery,
  payload: string,
  host: string | null,
  sentAt: Date,
): Promise<AttemptOutcome> {
  const config = workerConfig(env);
  const verdict = checkUrl(delivery.url, { allowlist: config.urlAllowlist });
  if (!verdict.ok) return { kind: "blocked", reason: `webhook_url refused: ${verdict.reason}` };
  if (host) {
    const gate = await hostGate(env, host, Date.now());
    if (gate.open) {
      const reason = `not attempted: ${host} failed ${WEBHOOK_BREAKER_FAILURES} times in a row (circuit open)`;
      return { kind: "deferred", until: gate.until, reason };
    }
  }
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

/** The `host:port` a URL names: what the circuit breaker counts by. */
function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}
