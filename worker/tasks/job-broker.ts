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
 *
 * Even that conditional UPDATE is a statement on D1's primary, and every enqueue of every key sends
 * one: so a Worker instance records a success at most once per `SUCCESS_RECORD_INTERVAL_MS`, and
 * again at once after a failure of its own. A failure recorded by another instance is therefore
 * cleared by this one's next success at most that interval late; /health may say `reconnecting` that
 * long after the Queue came back, never `ready` while sends fail.
 */

/** The row of the task Queue. */
const TASK_QUEUE = "task_queue";

/** How often one instance records a successful send. */
const SUCCESS_RECORD_INTERVAL_MS = 5_000;

/** When this instance last recorded a success; a failure it sees makes the next success record at once. */
let successRecordedAt = Number.NEGATIVE_INFINITY;

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
  } finally {
    // after the write: a success whose UPDATE ran before it must not hold off the next one
    successRecordedAt = Number.NEGATIVE_INFINITY;
  }
}

/** Records a successful send: a recorded failure is over. Never throws. */
export async function recordPublishSuccess(env: Env): Promise<void> {
  const now = Date.now();
  if (now - successRecordedAt < SUCCESS_RECORD_INTERVAL_MS) return;
  successRecordedAt = now;
  try {
    await db(env)
      .update(brokerStatus)
      .set({ state: "ready", error: "", changed_at: now })
      .where(and(eq(brokerStatus.broker, TASK_QUEUE), eq(brokerStatus.state, "reconnecting")));
  } catch (writeError) {
    successRecordedAt = Number.NEGATIVE_INFINITY; // not recorded: the next success tries again
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
