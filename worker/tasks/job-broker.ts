import { and, eq } from "drizzle-orm";
import { db } from "../../platform/db.ts";
import { brokerStatus } from "../../platform/schema.ts";
import type { HealthResponse } from "../schemas/discovery.ts";
import { brokerErrorText } from "./broker-error-text.ts";

/**
 * Whether a publish would reach the job broker, the TASK_QUEUE Queue every enqueue sends to. A
 * Queue producer has no way to ask without sending, so the answer is the last publish outcome: a
 * failed send is recorded (D1 `broker_status`, seen by every isolate), and the next send that succeeds
 * clears it. Only a change is written: a success updates the row only while it says `reconnecting`.
 */

/** The row of the task Queue. */
const TASK_QUEUE = "task_queue";

/** Records a failed send; its text is cleaned for /health. Never throws: the caller has its own error. */
export async function recordPublishFailure(env: Env, cause: unknown): Promise<void> {
  const error = brokerErrorText(cause);
  const changed_at = Date.now();
  try {
    await db(env)
      .insert(brokerStatus)
      .values({ broker: TASK_QUEUE, state: "reconnecting", error, changed_at })
      .onConflictDoUpdate({ target: brokerStatus.broker, set: { state: "reconnecting", error, changed_at } });
  } catch (writeError) {
    console.error(
      JSON.stringify({ job_broker: "recording a failed publish failed", error: String(writeError) }),
    );
  }
}

/** Records a successful send: a recorded failure is over. Never throws. */
export async function recordPublishSuccess(env: Env): Promise<void> {
  try {
    await db(env)
      .update(brokerStatus)
      .set({ state: "ready", error: "", changed_at: Date.now() })
      .where(and(eq(brokerStatus.broker, TASK_QUEUE), eq(brokerStatus.state, "reconnecting")));
  } catch (writeError) {
    console.error(JSON.stringify({ job_broker: "recording a publish failed", error: String(writeError) }));
  }
}

/**
 * /health's `job_queue` and `job_queue_error`: `reconnecting` with the last failure's text after a
 * failed send, `ready` when no send has failed since the last one that succeeded (or ever), and
 * `unknown` when the deployment has no Queue binding or the record cannot be read.
 */
export async function readJobQueue(env: Env): Promise<Pick<HealthResponse, "job_queue" | "job_queue_error">> {
  if (!env.TASK_QUEUE) return { job_queue: "unknown", job_queue_error: "" };
  try {
    const row = await db(env).select().from(brokerStatus).where(eq(brokerStatus.broker, TASK_QUEUE)).get();
    return row?.state === "reconnecting"
      ? { job_queue: "reconnecting", job_queue_error: row.error }
      : { job_queue: "ready", job_queue_error: "" };
  } catch (cause) {
    console.error(JSON.stringify({ job_broker: "reading the publish record failed", error: String(cause) }));
    return { job_queue: "unknown", job_queue_error: "" };
  }
}
