import { and, desc, eq, isNull, lt, or, type SQL, sum } from "drizzle-orm";
import { replicaReader } from "../../platform/db.ts";
import { jobs, taskCounts } from "../../platform/schema.ts";
import { recordFromRow } from "../../platform/task-store.ts";
import type { TaskRecord, TaskRecordOf, TaskStatus } from "../../protocol/task.ts";
import type { MediaUrlMinter } from "../media/media-url.ts";
import type { HistoryPage } from "../schemas/history.ts";
import { decodeCursor, encodeCursor } from "./history-cursor.ts";
import { toHistoryEntry } from "./task-view.ts";

export interface HistoryQuery {
  ownerKeyId: string;
  limit: number;
  skip: number;
  status?: TaskStatus;
  /** Where the previous page ended (already checked by the query schema). */
  cursor?: string;
}

/**
 * One page of a key's transcriptions from the permanent store, newest first; `total` ignores paging
 * and comes from the key's counters (task_counts), not a count of its rows. Read through a D1 session
 * that may use a replica: a page a few seconds old is harmless here.
 */
export async function listHistory(
  env: Env,
  query: HistoryQuery,
  mintAudioUrl: MediaUrlMinter,
): Promise<HistoryPage> {
  const filters: SQL[] = [
    eq(jobs.owner_key_id, query.ownerKeyId),
    eq(jobs.kind, "transcribe"),
    isNull(jobs.deleted_at),
  ];
  if (query.status) filters.push(eq(jobs.status, query.status));
  const after = query.cursor ? decodeCursor(query.cursor) : null;
  if (after) {
    const before = or(
      lt(jobs.created_at, after.createdAt),
      and(eq(jobs.created_at, after.createdAt), lt(jobs.task_id, after.taskId)),
    );
    if (before) filters.push(before);
  }
  const countFilters: SQL[] = [
    eq(taskCounts.owner_key_id, query.ownerKeyId),
    eq(taskCounts.kind, "transcribe"),
  ];
  if (query.status) countFilters.push(eq(taskCounts.status, query.status));
  const store = replicaReader(env);
  // One D1 round trip for the page and its total.
  const [rows, totals] = await store.batch([
    store
      .select()
      .from(jobs)
      .where(and(...filters))
      .orderBy(desc(jobs.created_at), desc(jobs.task_id))
      .limit(query.limit)
      .offset(query.skip),
    store
      .select({ n: sum(taskCounts.n).mapWith(Number) })
      .from(taskCounts)
      .where(and(...countFilters)),
  ]);
  const records = (await Promise.all(rows.map((row) => recordFromRow(env, row)))).filter(isTranscription);
  const last = rows.at(-1);
  return {
    jobs: await Promise.all(records.map((record) => toHistoryEntry(record, mintAudioUrl))),
    total: totals[0]?.n ?? 0,
    limit: query.limit,
    skip: query.skip,
    next_cursor:
      last && rows.length === query.limit
        ? encodeCursor({ createdAt: last.created_at, taskId: last.task_id })
        : null,
  };
}

const isTranscription = (record: TaskRecord): record is TaskRecordOf<"transcribe"> =>
  record.kind === "transcribe";
