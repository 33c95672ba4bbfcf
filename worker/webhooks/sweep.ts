import { and, eq, inArray, isNull, lte, or } from "drizzle-orm";
import { db } from "../../platform/db.ts";
import { jobs, webhookDeliveries } from "../../platform/schema.ts";
import { markWebhookDue, sendWebhookMessage } from "../../platform/webhook-store.ts";
import { forgetOldHosts } from "./breaker.ts";

/** Deliveries one cron run re-sends (the rest wait for the next minute). */
const SWEEP_LIMIT = 100;
/** A due delivery unclaimed this long lost its Queue message (a restart, a failed send) or it is late. */
const OVERDUE_MS = 30_000;
/**
 * A delivery the sweep sent a message is not sent another for this long (unless an attempt ran since):
 * in a backed-up webhook Queue its message may just be late, and one more a minute per delivery would
 * only add to the backlog.
 */
export const WEBHOOK_RESEND_AFTER_MS = 5 * 60_000;

/**
 * The cron safety net of task webhooks: a delivery whose task ended but that was never made due (a
 * crash between the two writes) is made due, and a due one whose Queue message was lost (locally the
 * Queue lives in memory, so a restart drops it) gets a new message, unless the sweep sent it one
 * within WEBHOOK_RESEND_AFTER_MS. A duplicate message is harmless (an attempt is claimed in D1 first) but
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
  const overdue = await db(env)
    .select({ task_id: webhookDeliveries.task_id })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.status, "pending"),
        lte(webhookDeliveries.due_at, now - OVERDUE_MS),
        or(
          isNull(webhookDeliveries.swept_at),
          lte(webhookDeliveries.swept_at, now - WEBHOOK_RESEND_AFTER_MS),
        ),
      ),
    )
    .limit(SWEEP_LIMIT);
  for (const row of overdue) {
    await db(env)
      .update(webhookDeliveries)
      .set({ swept_at: now })
      .where(eq(webhookDeliveries.task_id, row.task_id));
    await sendWebhookMessage(env, row.task_id);
  }
  await forgetOldHosts(env, now);
  const count = undue.length + overdue.length;
  if (count > 0) console.log(JSON.stringify({ event: "webhooks_swept", count }));
  return count;
}
