import { and, eq, inArray, isNull, lte, or } from "drizzle-orm";
import { db } from "../../platform/db.ts";
import { jobs, webhookDeliveries } from "../../platform/schema.ts";
import { markWebhookDue, sendWebhookMessage } from "../../platform/webhook-store.ts";
import { forgetOldHosts } from "./breaker.ts";

/** Deliveries one cron run re-sends (the rest wait for the next minute). */
const SWEEP_LIMIT = 100;
/**
 * A due delivery whose latest Queue message was due to arrive this long ago and that is still
 * unclaimed lost it (a restart, a failed send). Minutes, not seconds: a backed-up webhook Queue may
 * hold a message that long, and another one for the same delivery would only add to the backlog.
 */
export const WEBHOOK_RESEND_AFTER_MS = 2 * 60_000;

/**
 * The cron safety net of task webhooks: a delivery whose task ended but that was never made due (a
 * crash between the two writes) is made due, and a due one whose Queue message was lost (locally the
 * Queue lives in memory, so a restart drops it) gets a new message, unless one was sent within
 * WEBHOOK_RESEND_AFTER_MS. A duplicate message is harmless (an attempt is claimed in D1 first) but
 * costs a consumer slot. Also forgets the circuit breaker's stale hosts. Returns how many were re-sent.
 */
export async function sweepWebhooks(env: Env, now = Date.now()): Promise<number> {
  const undue = await db(env)
    .select({ task_id: webhookDeliveries.task_id })
    .from(webhookDeliveries)
    .innerJoin(jobs, eq(jobs.task_id, webhookDeliveries.task_id))
    .where(
      and(
        eq(webhookDeliveries.status, "pending"),
        isNull(webhookDeliveries.due_at),
        inArray(jobs.status, ["done", "failed"]),
      ),
    )
    .limit(SWEEP_LIMIT);
  for (const row of undue) await markWebhookDue(env, row.task_id, now);
  const lostBefore = now - WEBHOOK_RESEND_AFTER_MS;
  const overdue = await db(env)
    .select({ task_id: webhookDeliveries.task_id })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.status, "pending"),
        lte(webhookDeliveries.due_at, lostBefore),
        or(isNull(webhookDeliveries.message_at), lte(webhookDeliveries.message_at, lostBefore)),
      ),
    )
    .limit(SWEEP_LIMIT);
  for (const row of overdue) {
    await db(env)
      .update(webhookDeliveries)
      .set({ message_at: now })
      .where(eq(webhookDeliveries.task_id, row.task_id));
    await sendWebhookMessage(env, row.task_id);
  }
  await forgetOldHosts(env, now);
  const count = undue.length + overdue.length;
  if (count > 0) console.log(JSON.stringify({ event: "webhooks_swept", count }));
  return count;
}
