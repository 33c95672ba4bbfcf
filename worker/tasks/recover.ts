import { and, asc, eq, gt, isNull, lt, or } from "drizzle-orm";
import { workerConfig } from "../../platform/config.ts";
import { db } from "../../platform/db.ts";
import { schedulerName, schedulerOfTask } from "../../platform/dispatch-routing.ts";
import { jobs, sweepCursors } from "../../platform/schema.ts";
import { dispatcher } from "../../platform/stubs.ts";

/** A queued task older than this that the Dispatcher does not hold lost its Queue message. */
const ORPHAN_AGE_MS = 2 * 60 * 1000;
/** Tasks read from D1 and asked about in one Dispatcher call. */
const SWEEP_PAGE = 200;
/** Pages per cron run: a backlog of 20 000 old queued tasks is checked through in 20 minutes. */
const SWEEP_PAGES = 5;
const CURSOR = "orphans";

type Cursor = { created_at: number; task_id: string } | null;

/**
 * Finds queued tasks whose Queue message was lost (a crash between the D1 write and the send) and hands
 * only those to the Dispatcher: each page of old queued tasks is one call asking which of them it does
 * not know (waiting, leased or recently finished), so a healthy backlog costs no enqueue. The sweep goes
 * on from where the last run stopped (D1 `sweep_cursors`), so an orphan behind a long backlog is still
 * found. Returns how many were recovered.
 */
export async function recoverOrphanedTasks(env: Env, now = Date.now()): Promise<number> {
  let cursor = await readCursor(env);
  let recovered = 0;
  for (let page = 0; page < SWEEP_PAGES; page++) {
    const rows = await oldQueuedAfter(env, cursor, now - ORPHAN_AGE_MS);
    const last = rows.at(-1);
    recovered += await handOverUnknown(env, rows);
    // A short page is the end of the backlog: the next run starts again from the oldest.
    cursor =
      rows.length === SWEEP_PAGE && last ? { created_at: last.created_at, task_id: last.task_id } : null;
    if (!cursor) break;
  }
  await writeCursor(env, cursor);
  if (recovered > 0) console.log(JSON.stringify({ event: "orphans_recovered", count: recovered }));
  return recovered;
}

type SweptTask = Awaited<ReturnType<typeof oldQueuedAfter>>[number];

/**
 * Asks each scheduler (one per pool and work class) once which of its page's tasks it does not know, and
 * hands only those over; returns how many it took.
 */
async function handOverUnknown(env: Env, rows: readonly SweptTask[]): Promise<number> {
  const { modelRegistry, dispatcherPartitions } = workerConfig(env);
  const defaultModel = modelRegistry.default_model;
  const bySchedulers = new Map<string, { key: ReturnType<typeof schedulerOfTask>; rows: SweptTask[] }>();
  for (const row of rows) {
    const key = schedulerOfTask({ ...row, owner_key_id: row.owner }, defaultModel, dispatcherPartitions);
    const group = bySchedulers.get(schedulerName(key)) ?? { key, rows: [] };
    group.rows.push(row);
    bySchedulers.set(schedulerName(key), group);
  }
  let recovered = 0;
  for (const { key, rows: theirs } of bySchedulers.values()) {
    const scheduler = dispatcher(env, key);
    const unknown = new Set(await scheduler.unknownTasks(theirs.map((r) => r.task_id)));
    for (const { params: _routing, created_at: _at, ...task } of theirs.filter((r) =>
      unknown.has(r.task_id),
    )) {
      if ((await scheduler.enqueue({ ...task, owner: task.owner ?? "" })) === "queued") recovered++;
    }
  }
  return recovered;
}

/** The next page of queued, undeleted tasks created before `before`, after `cursor`, oldest first. */
function oldQueuedAfter(env: Env, cursor: Cursor, before: number) {
  const after = cursor
    ? or(
        gt(jobs.created_at, cursor.created_at),
        and(eq(jobs.created_at, cursor.created_at), gt(jobs.task_id, cursor.task_id)),
      )
    : undefined;
  return db(env)
    .select({
      task_id: jobs.task_id,
      owner: jobs.owner_key_id,
      lane: jobs.lane,
      kind: jobs.kind,
      params: jobs.params,
      created_at: jobs.created_at,
    })
    .from(jobs)
    .where(and(eq(jobs.status, "queued"), lt(jobs.created_at, before), isNull(jobs.deleted_at), after))
    .orderBy(asc(jobs.created_at), asc(jobs.task_id))
    .limit(SWEEP_PAGE);
}

async function readCursor(env: Env): Promise<Cursor> {
  const [row] = await db(env)
    .select({ created_at: sweepCursors.created_at, task_id: sweepCursors.task_id })
    .from(sweepCursors)
    .where(eq(sweepCursors.sweep, CURSOR));
  return row ?? null;
}

async function writeCursor(env: Env, cursor: Cursor): Promise<void> {
  if (!cursor) {
    await db(env).delete(sweepCursors).where(eq(sweepCursors.sweep, CURSOR));
    return;
  }
  await db(env)
    .insert(sweepCursors)
    .values({ sweep: CURSOR, ...cursor })
    .onConflictDoUpdate({ target: sweepCursors.sweep, set: cursor });
}
