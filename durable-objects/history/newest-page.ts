import type { HistoryRows } from "../../platform/history-store.ts";

/**
 * What the HistoryCache decides, as plain functions: whether its copy of a key's newest history page
 * may answer a request, and whether a page read from D1 is worth keeping.
 */

/** How long a cached page may answer: the safety net for a crash between a write and its invalidation. */
export const HISTORY_CACHE_TTL_MS = 5_000;

/** A page whose results weigh more than this (as JSON) is served but not kept: the object's memory is bounded. */
export const HISTORY_CACHE_MAX_RESULT_CHARS = 4_000_000;

/** The newest `limit` entries of a key's history (fewer: all it has) and its total, read at `readAt`. */
export interface CachedPage {
  limit: number;
  rows: HistoryRows;
  /** When the read that filled it began (ms since the epoch). */
  readAt: number;
}

/**
 * The newest `limit` entries and the total from the cached page, or null when it cannot answer: none,
 * older than HISTORY_CACHE_TTL_MS, or shorter than asked while the key has more. A page of the newest
 * L entries answers any limit up to L exactly as a D1 read would (the first `limit` of them).
 */
export function answerFromCache(page: CachedPage | null, limit: number, now: number): HistoryRows | null {
  if (!page || now - page.readAt >= HISTORY_CACHE_TTL_MS) return null;
  const isWholeList = page.rows.records.length < page.limit;
  if (limit > page.limit && !isWholeList) return null;
  return { records: page.rows.records.slice(0, limit), total: page.rows.total };
}

/** Whether a freshly read page is small enough to keep in memory. */
export function isWorthKeeping(rows: HistoryRows): boolean {
  let chars = 0;
  for (const record of rows.records) {
    if (record.result) chars += JSON.stringify(record.result).length;
    if (chars > HISTORY_CACHE_MAX_RESULT_CHARS) return false;
  }
  return true;
}
