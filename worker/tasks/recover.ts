import { and, asc, eq, lt } from "drizzle-orm";
import { db } from "../db/client.ts";
import { jobs } from "../db/schema.ts";
import { dispatcher } from "./dispatcher.ts";

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
    .select({ taskId: jobs.taskId, ownerKeyId: jobs.ownerKeyId, lane: jobs.lane, kind: jobs.kind })
    .from(jobs)
    .where(and(eq(jobs.status, "queued"), lt(jobs.createdAt, now - ORPHAN_AGE_MS)))
    .orderBy(asc(jobs.createdAt))
    .limit(SWEEP_LIMIT);
  let recovered = 0;
  for (const row of rows) {
    const outcome = await dispatcher(env).enqueue({
      task_id: row.taskId,
      owner: row.ownerKeyId ?? "",
      lane: row.lane,
      kind: row.kind,
    });
    if (outcome === "queued") recovered++;
  }
  if (recovered > 0) console.log(JSON.stringify({ event: "orphans_recovered", count: recovered }));
  return recovered;
}
