import { and, eq, inArray, isNotNull, isNull, ne, sql } from "drizzle-orm";
import { db } from "../../platform/db.ts";
import { invalidateHistory } from "../../platform/history-invalidation.ts";
import { deleteResults } from "../../platform/result-store.ts";
import { jobs } from "../../platform/schema.ts";
import { dispatcherOfTask, jobState } from "../../platform/stubs.ts";
import { countRemoved } from "../../platform/task-counts.ts";
import { deleteWebhook } from "../../platform/webhook-store.ts";
import type { TaskKind, TaskSource } from "../../protocol/task.ts";
import { isUploadKey, knownSpeakerPrefix, outputPrefix } from "../ingest/object-keys.ts";
import { forgetUpload } from "../ingest/upload-registry.ts";

/**
 * Deleting a task (DELETE /transcribe/{id}, DELETE /v1/create/tasks/{id}). D1 is the truth and reads
 * fall back to it, so the steps are ordered for a crash after any of them to leave either a task a
 * retried DELETE deletes, or a marked one the cron sweep finishes:
 * 1. the JobState entry is erased (a marker refuses late writes until its alarm; reads go to D1);
 * 2. the D1 row is marked `deleted_at` (the commit point: from here every reader answers 404, a
 *    repeated DELETE too, and no status write touches the row, so a node completing late cannot
 *    store a result);
 * 3. the Dispatcher cancels it: a waiting task leaves the line, a running one's lease is flagged and
 *    its node told to stop on its next heartbeat (any later call on that lease gets 410);
 * 4. the stored upload, the outputs and the result objects go from R2;
 * 5. the row goes.
 * Every step may run any number of times.
 */

/** Marked deletes finished per cron run (the rest wait for the next minute). */
const SWEEP_LIMIT = 100;

/**
 * Deletes the caller's task of one of `kinds`; false when it is unknown, another key's, of another
 * kind or already deleted (all answered 404).
 */
export async function deleteOwnedTask(
  env: Env,
  taskId: string,
  ownerKeyId: string,
  kinds: readonly TaskKind[],
): Promise<boolean> {
  const owned = and(
    eq(jobs.task_id, taskId),
    eq(jobs.owner_key_id, ownerKeyId),
    inArray(jobs.kind, [...kinds]),
    isNull(jobs.deleted_at),
  );
  const found = await db(env).select({ kind: jobs.kind }).from(jobs).where(owned).get();
  if (!found) return false;
  await jobState(env, taskId).erase();
  const store = db(env);
  // The per-key counter stops counting it in the batch that marks it (its count is the mark's).
  const [, marked] = await store.batch([
    countRemoved(store, taskId),
    store.update(jobs).set({ deleted_at: Date.now() }).where(owned).returning({ task_id: jobs.task_id }),
  ]);
  // A concurrent DELETE of the same task marked it in between: that one answers 204, this one 404.
  if (marked.length === 0) return false;
  // From the mark on, the task is on no history page: the key's cached one goes before the answer.
  await invalidateHistory(env, { owner_key_id: ownerKeyId, kind: found.kind });
  await finishDelete(env, taskId);
  return true;
}

/** Steps 3 to 5 of a marked task's delete (and step 1 again, for the sweep); repeatable. */
async function finishDelete(env: Env, taskId: string): Promise<void> {
  await jobState(env, taskId).erase();
  const row = await db(env)
    .select({ source: jobs.source, owner: jobs.owner_key_id, kind: jobs.kind, params: jobs.params })
    .from(jobs)
    .where(eq(jobs.task_id, taskId))
    .get();
  // No row: a repeated finish already removed it, after its cancel and its result objects.
  if (!row) return;
  await dispatcherOfTask(env, { ...row, owner_key_id: row.owner }).cancel(taskId);
  await deleteTaskMedia(env, taskId, row.source, row.owner);
  await deleteResults(env, taskId);
  await deleteWebhook(env, taskId);
  await db(env)
    .delete(jobs)
    .where(and(eq(jobs.task_id, taskId), isNotNull(jobs.deleted_at)));
}

/** Finishes deletes a crash cut short (cron). Returns how many it finished. */
export async function finishMarkedDeletes(env: Env): Promise<number> {
  const rows = await db(env)
    .select({ task_id: jobs.task_id })
    .from(jobs)
    .where(isNotNull(jobs.deleted_at))
    .limit(SWEEP_LIMIT);
  for (const row of rows) await finishDelete(env, row.task_id);
  return rows.length;
}

/**
 * Removes a task's media from R2: the upload it was made from (only an object we stored, never
 * someone's URL, and only when no other live task of the owner was made from the same upload) and
 * every output under `outputs/<task id>/` (both output key shapes, object-keys.ts); with the upload go
 * its known-speaker reference clips.
 */
export async function deleteTaskMedia(
  env: Env,
  taskId: string,
  source: TaskSource,
  ownerKeyId: string | null,
): Promise<void> {
  if (source.type === "object" && isUploadKey(source.object_key)) {
    if (!(await uploadUsedElsewhere(env, source.object_key, ownerKeyId, taskId))) {
      await env.MEDIA.delete(source.object_key);
      await forgetUpload(env, source.object_key);
      await deletePrefix(env, knownSpeakerPrefix(source.object_key));
    }
  }
  await deletePrefix(env, outputPrefix(taskId));
}

async function deletePrefix(env: Env, prefix: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await env.MEDIA.list({ prefix, cursor });
    if (page.objects.length > 0) await env.MEDIA.delete(page.objects.map((object) => object.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
}

/** Whether another task of the owner, not deleted and with its media kept, was made from this upload. */
async function uploadUsedElsewhere(
  env: Env,
  objectKey: string,
  ownerKeyId: string | null,
  taskId: string,
): Promise<boolean> {
  if (!ownerKeyId) return false;
  const other = await db(env)
    .select({ task_id: jobs.task_id })
    .from(jobs)
    .where(
      and(
        eq(jobs.owner_key_id, ownerKeyId),
        ne(jobs.task_id, taskId),
        isNull(jobs.deleted_at),
        isNull(jobs.media_deleted_at),
        sql`json_extract(${jobs.source}, '$.object_key') = ${objectKey}`,
      ),
    )
    .limit(1)
    .get();
  return other !== undefined;
}
