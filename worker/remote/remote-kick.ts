import { and, eq, isNull } from "drizzle-orm";
import { db } from "../../platform/db.ts";
import { jobs } from "../../platform/schema.ts";
import { remoteTier } from "../../platform/stubs.ts";
import { remoteDefaultEntry } from "./remote-tier.ts";

/**
 * Wakes the remote tier's executor (the RemoteTier object of the default `http` entry), which runs
 * the line in alarms. The Queue consumer calls it after a hand-off; it never runs a lease itself.
 * Returns whether there is a remote tier to wake.
 */
export async function wakeRemoteTier(env: Env): Promise<boolean> {
  const entry = remoteDefaultEntry(env);
  if (!entry) return false;
  await remoteTier(env, entry.id).kick();
  return true;
}

/**
 * The cron sweep's nudge: when a transcription is waiting, wake the executor. This is what runs a task
 * again after its executor died mid-call (its lease expired and put it back in line) and the object's
 * own alarm retries ran out. Returns whether it woke one.
 */
export async function kickRemoteTier(env: Env): Promise<boolean> {
  if (!remoteDefaultEntry(env)) return false;
  const waiting = await db(env)
    .select({ task_id: jobs.task_id })
    .from(jobs)
    .where(and(eq(jobs.status, "queued"), eq(jobs.kind, "transcribe"), isNull(jobs.deleted_at)))
    .limit(1)
    .get();
  if (!waiting) return false;
  return wakeRemoteTier(env);
}
