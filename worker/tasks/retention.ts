import { and, asc, eq, inArray, isNull, lt } from "drizzle-orm";
import { workerConfig } from "../../platform/config.ts";
import { db } from "../../platform/db.ts";
import { jobs } from "../../platform/schema.ts";
import { deleteTaskMedia } from "./delete.ts";

/** Tasks whose media one cron run deletes (the rest wait for the next minute). */
const SWEEP_LIMIT = 100;

/**
 * RETENTION_DAYS: deletes the stored upload and the outputs of ended tasks created longer ago than
 * that, oldest first, and stamps `media_deleted_at` so each task is swept once. The row stays: the
 * history entry and transcript remain, their media links answer 404. Returns how many were swept.
 */
export async function sweepExpiredMedia(env: Env, now = Date.now()): Promise<number> {
  const { retentionMs } = workerConfig(env);
  if (retentionMs === null) return 0;
  const rows = await db(env)
    .select({ task_id: jobs.task_id, source: jobs.source, owner: jobs.owner_key_id })
    .from(jobs)
    .where(
      and(
        inArray(jobs.status, ["done", "failed"]),
        lt(jobs.created_at, now - retentionMs),
        isNull(jobs.media_deleted_at),
        isNull(jobs.deleted_at),
      ),
    )
    .orderBy(asc(jobs.created_at))
    .limit(SWEEP_LIMIT);
  for (const row of rows) {
    // Stamped after: a crash in between only repeats the deletes next minute.
    await deleteTaskMedia(env, row.task_id, row.source, row.owner);
    await db(env).update(jobs).set({ media_deleted_at: now }).where(eq(jobs.task_id, row.task_id));
  }
  if (rows.length > 0) console.log(JSON.stringify({ event: "media_retention_swept", count: rows.length }));
  return rows.length;
}
