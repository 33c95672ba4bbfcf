import { and, asc, eq, isNull } from "drizzle-orm";
import { db } from "../../platform/db.ts";
import { jobs } from "../../platform/schema.ts";
import type { TaskMessage } from "../../protocol/task.ts";
import { remoteDefaultEntry } from "./remote-tier.ts";

/**
 * The cron sweep's nudge for a remote default model: when a transcription is waiting, one Queue message
 * (for the oldest) starts a consumer, which runs the remote tier until the line is empty. This is what
 * runs a task again after its executor died mid-call (its lease expired and put it back in line after
 * its own message was acked). Returns whether it sent one.
 */
export async function kickRemoteTier(env: Env): Promise<boolean> {
  if (!remoteDefaultEntry(env)) return false;
  const oldest = await db(env)
    .select({ task_id: jobs.task_id })
    .from(jobs)
    .where(and(eq(jobs.status, "queued"), eq(jobs.kind, "transcribe"), isNull(jobs.deleted_at)))
    .orderBy(asc(jobs.created_at))
    .limit(1)
    .get();
  if (!oldest) return false;
  const message: TaskMessage = { task_id: oldest.task_id, kind: "transcribe" };
  await env.TASK_QUEUE.send(message);
  return true;
}
