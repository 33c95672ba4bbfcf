import { and, desc, eq, isNull, lt, or, type SQL, sum } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import type { TaskRecord, TaskRecordOf, TaskStatus } from "../protocol/task.ts";
import { replicaReader } from "./db.ts";
import { jobs, taskCounts } from "./schema.ts";
import { recordFromRow } from "./task-store.ts";

export interface HistoryRowsQuery {
  ownerKeyId: string;
  limit: number;
  skip: number;
  status?: TaskStatus;
  /** Where the previous page ended: its last entry's creation time and id (the list's order). */
  after?: { createdAt: number; taskId: string } | null;
}

/** One page of a key's history as records, newest first, with the key's total for the query's status. */
export interface HistoryRows {
  records: TaskRecordOf<"transcribe">[];
  total: number;
}

/**
 * Reads one page of a key's history and its total in one D1 round trip: the page from `jobs` (newest
 * first, by the index), the total from the key's counters (task_counts), not a count of its rows.
 * `from` says where: `replica`, a D1 session that may read a replica (a page a few seconds old is
 * harmless in a list), or `primary`, for the history cache's fill (which must not store a page older
 * than the write that last invalidated it).
 */
export async function readHistoryRows(
  env: Env,
  query: HistoryRowsQuery,
  from: "replica" | "primary",
): Promise<HistoryRows> {
  const filters: SQL[] = [
    eq(jobs.owner_key_id, query.ownerKeyId),
    eq(jobs.kind, "transcribe"),
    isNull(jobs.deleted_at),
  ];
  if (query.status) filters.push(eq(jobs.status, query.status));
  const after = query.after;
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
  const store = from === "replica" ? replicaReader(env) : drizzle(env.DB);
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
  const records = await Promise.all(rows.map((row) => recordFromRow(env, row)));
  return { records: records.filter(isTranscription), total: totals[0]?.n ?? 0 };
}

const isTranscription = (record: TaskRecord): record is TaskRecordOf<"transcribe"> =>
  record.kind === "transcribe";
