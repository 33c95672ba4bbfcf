import { dispatcherOfTask } from "../platform/stubs.ts";
import { changeTaskStatus, readTask } from "../platform/task-store.ts";
import { sendWebhookMessage, WebhookMessage } from "../platform/webhook-store.ts";
import { TaskMessage } from "../protocol/task.ts";
import { wakeRemoteTier } from "./remote/remote-kick.ts";

const DEAD_LETTER_SUFFIX = "-dlq";

/**
 * Hands queued tasks to the Dispatcher. Delivery is at least once: the Dispatcher ignores a task it
 * already holds, and a task that already ended is not handed over again. A message that keeps
 * failing lands in the dead-letter queue, whose consumer fails the task with a clear error.
 * Webhook attempts have their own Queue (worker/webhooks/consumer.ts); a WebhookMessage still found
 * here (sent before that Queue existed) is forwarded to it, and one in the dead-letter queue is
 * dropped, since its due row in D1 is re-sent by the cron sweep.
 *
 * With a remote default model (registry kind `http`) the consumer also wakes the remote tier's executor
 * (the RemoteTier object, which runs the line in bounded alarms) and acks: the consumer itself never
 * transcribes, so a batch ends in milliseconds, far inside the Queue's consumer wall-clock limit. Task
 * hand-offs and webhook attempts never share a batch: webhooks have their own Queue.
 */
export async function consumeTasks(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const deadLetters = batch.queue.endsWith(DEAD_LETTER_SUFFIX);
  const handedOver: Message<unknown>[] = [];
  for (const message of batch.messages) {
    const webhook = WebhookMessage.safeParse(message.body);
    if (webhook.success) {
      if (!deadLetters) await forwardWebhook(env, message, webhook.data.webhook_task_id);
      else message.ack();
      continue;
    }
    const parsed = TaskMessage.safeParse(message.body);
    if (!parsed.success) {
      console.error(
        JSON.stringify({ queue: batch.queue, error: "malformed task message", body: message.body }),
      );
      message.ack();
      continue;
    }
    try {
      if (deadLetters) await failUndeliverable(env, parsed.data.task_id);
      else await handOver(env, parsed.data.task_id);
      handedOver.push(message);
    } catch (cause) {
      console.error(
        JSON.stringify({ queue: batch.queue, task_id: parsed.data.task_id, error: String(cause) }),
      );
      message.retry({ delaySeconds: 2 });
    }
  }
  if (!deadLetters && handedOver.length > 0) {
    try {
      await wakeRemoteTier(env);
    } catch (cause) {
      // The task is in the Dispatcher's line already; a retried message wakes the executor again.
      console.error(JSON.stringify({ queue: batch.queue, error: `remote tier wake-up: ${String(cause)}` }));
      for (const message of handedOver) message.retry({ delaySeconds: 2 });
      return;
    }
  }
  for (const message of handedOver) message.ack();
}

async function handOver(env: Env, taskId: string): Promise<void> {
  const record = await readTask(env, taskId);
  if (record?.status !== "queued") return;
  await dispatcherOfTask(env, record).enqueue({
    task_id: record.task_id,
    owner: record.owner_key_id ?? "",
    lane: record.lane,
    kind: record.kind,
  });
}

async function failUndeliverable(env: Env, taskId: string): Promise<void> {
  const record = await readTask(env, taskId);
  if (record?.status !== "queued") return;
  await changeTaskStatus(env, taskId, {
    status: "failed",
    failure: {
      code: "queue_undeliverable",
      message: "the task could not be scheduled (job queue delivery failed repeatedly)",
    },
  });
}

/** Moves a webhook attempt of the old shape onto the webhook Queue. */
async function forwardWebhook(env: Env, message: Message<unknown>, taskId: string): Promise<void> {
  try {
    await sendWebhookMessage(env, taskId);
    message.ack();
  } catch (cause) {
    console.error(JSON.stringify({ event: "webhook_forward_error", task_id: taskId, error: String(cause) }));
    message.retry({ delaySeconds: 5 });
  }
}
