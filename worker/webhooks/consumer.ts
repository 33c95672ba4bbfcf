import { WebhookMessage } from "../../platform/webhook-store.ts";
import { attemptWebhook } from "./deliver.ts";

/** The webhook Queue's name (wrangler.toml); worker/index.ts routes its batches here. */
export const WEBHOOK_QUEUE_NAME = "voxedge-webhooks";

/**
 * The webhook Queue's consumer: every attempt of a batch at once (one receiver that never answers
 * holds its own attempt for WEBHOOK_TIMEOUT_SEC, not the rest of the batch), each acked when its
 * outcome is stored and retried when storing failed. A message that is not a WebhookMessage is
 * logged and dropped.
 */
export async function consumeWebhooks(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  await Promise.allSettled(batch.messages.map((message) => attemptOrRetry(env, batch.queue, message)));
}

async function attemptOrRetry(env: Env, queue: string, message: Message<unknown>): Promise<void> {
  const parsed = WebhookMessage.safeParse(message.body);
  if (!parsed.success) {
    console.error(JSON.stringify({ queue, error: "malformed webhook message", body: message.body }));
    message.ack();
    return;
  }
  const taskId = parsed.data.webhook_task_id;
  try {
    await attemptWebhook(env, taskId);
    message.ack();
  } catch (cause) {
    console.error(JSON.stringify({ event: "webhook_attempt_error", task_id: taskId, error: String(cause) }));
    message.retry({ delaySeconds: 5 });
  }
}
