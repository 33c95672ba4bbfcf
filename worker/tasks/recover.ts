import { and, asc, eq, isNull, lt } from "drizzle-orm";
import { db } from "../../platform/db.ts";
import { jobs } from "../../platform/schema.ts";
import { dispatcherOfTask } from "../../platform/stubs.ts";

/** A queued task older than this that the Dispatcher does not hold lost its Queue message. */
const ORPHAN_AGE_MS = 2 * 60 * 1000;
const SWEEP_LIMIT = 200;

/**
 * Hands the Dispatcher every old queued task again (it ignores those it already holds), so a task
 * whose Queue message was lost (a crash between the D1 write and the send) still runs.
 * Returns how many were actually recovered.
 */
export async function recoverOrphanedTasks(env: Env, now = Date.now()): Promise<number> {
  const rows = await db(env)
    .select({
      task_id: jobs.task_id,
      owner: jobs.owner_key_id,
      lane: jobs.lane,
      kind: jobs.kind,
      params: jobs.params,
    })
    .from(jobs)
    .where(and(eq(jobs.status, "queued"), lt(jobs.created_at, now - ORPHAN_AGE_MS), isNull(jobs.deleted_at)))
    .orderBy(asc(jobs.created_at))
    .limit(SWEEP_LIMIT);
  let recovered = 0;
  for (const row of rows) {
    const { params: _routing, ...task } = row;
    const outcome = await dispatcherOfTask(env, row).enqueue({ ...task, owner: row.owner ?? "" });
    if (outcome === "queued") recovered++;
  }
  if (recovered > 0) console.log(JSON.stringify({ event: "orphans_recovered", count: recovered }));
  return recovered;
}
