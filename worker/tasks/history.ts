import { and, count, desc, eq, isNull, type SQL } from "drizzle-orm";
import { db } from "../../platform/db.ts";
import { jobs } from "../../platform/schema.ts";
import { recordFromRow } from "../../platform/task-store.ts";
import type { TaskRecordOf, TaskStatus } from "../../protocol/task.ts";
import type { MediaUrlMinter } from "../media/media-url.ts";
import type { HistoryPage } from "../schemas/history.ts";
import { toHistoryEntry } from "./task-view.ts";

export interface HistoryQuery {
  ownerKeyId: string;
  limit: number;
  skip: number;
  status?: TaskStatus;
}

/** One page of a key's transcriptions from the permanent store, newest first; `total` ignores paging. */
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
  const where = and(...filters);
  const store = db(env);
  // One D1 round trip for the page and its total.
  const [rows, totals] = await store.batch([
    store
      .select()
      .from(jobs)
      .where(where)
      .orderBy(desc(jobs.created_at), desc(jobs.task_id))
      .limit(query.limit)
      .offset(query.skip),
    store.select({ n: count() }).from(jobs).where(where),
  ]);
  const records = rows.map(recordFromRow).filter(isTranscription);
  return {
    jobs: await Promise.all(records.map((record) => toHistoryEntry(record, mintAudioUrl))),
    total: totals[0]?.n ?? 0,
    limit: query.limit,
    skip: query.skip,
  };
}

const isTranscription = (record: ReturnType<typeof recordFromRow>): record is TaskRecordOf<"transcribe"> =>
  record.kind === "transcribe";
