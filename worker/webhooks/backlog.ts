import { and, count, eq, isNotNull } from "drizzle-orm";
import { workerConfig } from "../../platform/config.ts";
import { db } from "../../platform/db.ts";
import { webhookDeliveries } from "../../platform/schema.ts";

/**
 * The per-key cap on webhook deliveries waiting on their receiver (WEBHOOK_MAX_PENDING_PER_KEY): the
 * deliveries of ended tasks not yet delivered nor given up. A key at the cap has a receiver that is
 * down or too slow; its new tasks that ask for a webhook are refused (429) rather than queued behind
 * them, and nothing already accepted is dropped. Tasks without a webhook_url are not affected.
 */

/** The Retry-After of a refusal: a backlog drains as its deliveries succeed or give up. */
export const WEBHOOK_BACKLOG_RETRY_SEC = 60;

/**
 * Why a new task of `ownerKeyId` may not have a webhook now; null when it may.
 *
 * @example await webhookBacklogRefusal(env, "key_abc") // null, or "1000 webhook deliveries of this API key …"
 */
export async function webhookBacklogRefusal(env: Env, ownerKeyId: string): Promise<string | null> {
  const cap = workerConfig(env).webhookMaxPendingPerKey;
  const row = await db(env)
    .select({ pending: count() })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.owner_key_id, ownerKeyId),
        eq(webhookDeliveries.status, "pending"),
        isNotNull(webhookDeliveries.ended_at),
      ),
    )
    .get();
  const pending = row?.pending ?? 0;
  if (pending < cap) return null;
  return `${pending} webhook deliveries of this API key are still waiting on their receiver (at most ${cap}): fix or speed up the receiver, or create the task without webhook_url and poll it`;
}
