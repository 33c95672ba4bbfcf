import { and, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import { db } from "./db.ts";
import { webhookDeliveries } from "./schema.ts";

/**
 * The durable side of task webhooks, shared by the Worker and the Durable Objects (a task may end in
 * either): the delivery row is written with its task, and made due, with a Queue message, when the
 * task ends. The attempts themselves are worker/webhooks/.
 */

/** Where a task's webhook goes, as its create request gave it (already checked). */
export interface WebhookTarget {
  url: string;
  /** A header sent as given with every attempt (both or neither). */
  authHeader: { name: string; value: string } | null;
}

/**
 * The Queue message that asks for one delivery attempt, on the webhook Queue (`voxedge-webhooks`).
 * Before that Queue existed these went on the task Queue; the task consumer forwards any still there.
 */
export const WebhookMessage = z.object({ webhook_task_id: z.string().min(1).max(128) });
export type WebhookMessage = z.infer<typeof WebhookMessage>;

/** The delivery row a new task's webhook starts as; inserted in one batch with the task's row. */
export function newDeliveryRow(
  taskId: string,
  ownerKeyId: string,
  target: WebhookTarget,
  baseUrl: string,
  now: number,
): typeof webhookDeliveries.$inferInsert {
  return {
    task_id: taskId,
    owner_key_id: ownerKeyId,
    url: target.url,
    auth_header_name: target.authHeader?.name ?? null,
    auth_header_value: target.authHeader?.value ?? null,
    base_url: baseUrl,
    webhook_id: `msg_${crypto.randomUUID().replaceAll("-", "")}`,
    status: "pending",
    created_at: now,
  };
}

/** Asks the webhook Queue for an attempt at `delaySeconds` from now. */
export async function sendWebhookMessage(env: Env, taskId: string, delaySeconds = 0): Promise<void> {
  const message: WebhookMessage = { webhook_task_id: taskId };
  await env.WEBHOOK_QUEUE.send(message, delaySeconds > 0 ? { delaySeconds } : undefined);
}

/**
 * Makes an ended task's webhook due now and asks the Queue for its first attempt. Never throws: the
 * task's end is already stored, and a delivery left undue (a crash, a failed send) is found by the
 * cron sweep (worker/webhooks/sweep.ts).
 */
export async function markWebhookDue(env: Env, taskId: string, now = Date.now()): Promise<void> {
  try {
    const due = await db(env)
      .update(webhookDeliveries)
      .set({ due_at: now, ended_at: now })
      .where(
        and(
          eq(webhookDeliveries.task_id, taskId),
          eq(webhookDeliveries.status, "pending"),
          isNull(webhookDeliveries.due_at),
        ),
      )
      .returning({ task_id: webhookDeliveries.task_id });
    if (due.length > 0) await sendWebhookMessage(env, taskId);
  } catch (cause) {
    console.error(JSON.stringify({ task_id: taskId, error: "webhook not scheduled", cause: String(cause) }));
  }
}

/** What a task view shows of its webhook; null when the task has none. */
export interface WebhookState {
  webhook_status: "pending" | "delivered" | "failed";
  webhook_last_http_status: number | null;
}

export async function readWebhookState(env: Env, taskId: string): Promise<WebhookState | null> {
  const row = await db(env)
    .select({ status: webhookDeliveries.status, http: webhookDeliveries.last_http_status })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.task_id, taskId))
    .get();
  return row ? { webhook_status: row.status, webhook_last_http_status: row.http } : null;
}

/** Forgets a deleted task's webhook (one not yet delivered is never sent). */
export async function deleteWebhook(env: Env, taskId: string): Promise<void> {
  await db(env).delete(webhookDeliveries).where(eq(webhookDeliveries.task_id, taskId));
}
