import { and, count, desc, eq, type SQL } from "drizzle-orm";
import type { TaskStatus } from "../../protocol/task.ts";
import { db } from "../db/client.ts";
import { jobs } from "../db/schema.ts";
import type { AudioUrlMinter } from "../media/audio-url.ts";
import type { HistoryPage } from "../schemas/history.ts";
import { fromRow } from "./task-store.ts";
import { toHistoryEntry } from "./task-view.ts";

export interface HistoryQuery {
  ownerKeyId: string;
  limit: number;
  skip: number;
  status?: TaskStatus;
}

/** One page of a key's jobs from the permanent store, newest first; `total` ignores paging. */
export async function listHistory(
  env: Env,
  query: HistoryQuery,
  mintAudioUrl: AudioUrlMinter,
): Promise<HistoryPage> {
  const filters: SQL[] = [eq(jobs.ownerKeyId, query.ownerKeyId)];
  if (query.status) filters.push(eq(jobs.status, query.status));
  const where = and(...filters);
  const store = db(env);
  // One D1 round trip for the page and its total.
  const [rows, totals] = await store.batch([
    store
      .select()
      .from(jobs)
      .where(where)
      .orderBy(desc(jobs.createdAt), desc(jobs.taskId))
      .limit(query.limit)
      .offset(query.skip),
    store.select({ n: count() }).from(jobs).where(where),
  ]);
  return {
    jobs: await Promise.all(rows.map((row) => toHistoryEntry(fromRow(row), mintAudioUrl))),
    total: totals[0]?.n ?? 0,
    limit: query.limit,
    skip: query.skip,
  };
}
