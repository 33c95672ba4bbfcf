import { type HistoryRows, readHistoryRows } from "../../platform/history-store.ts";
import { historyCache } from "../../platform/stubs.ts";
import type { TaskStatus } from "../../protocol/task.ts";
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
 * One page of a key's transcriptions, newest first; `total` ignores paging and comes from the key's
 * counters. The newest page (no cursor, skip or status) comes from the key's HistoryCache object,
 * which writes keep exact; any other page reads D1 through a session that may use a replica.
 */
export async function listHistory(
  env: Env,
  query: HistoryQuery,
  mintAudioUrl: MediaUrlMinter,
): Promise<HistoryPage> {
  const rows = await readPage(env, query);
  const last = rows.records.at(-1);
  return {
    jobs: await Promise.all(rows.records.map((record) => toHistoryEntry(record, mintAudioUrl))),
    total: rows.total,
    limit: query.limit,
    skip: query.skip,
    next_cursor:
      last && rows.records.length === query.limit
        ? encodeCursor({ createdAt: last.created_at, taskId: last.task_id })
        : null,
  };
}

function readPage(env: Env, query: HistoryQuery): Promise<HistoryRows> {
  const isNewestPage = !query.cursor && !query.status && query.skip === 0;
  if (isNewestPage) return historyCache(env, query.ownerKeyId).newestPage(query.ownerKeyId, query.limit);
  const after = query.cursor ? decodeCursor(query.cursor) : null;
  return readHistoryRows(env, { ...query, after }, "replica");
}
