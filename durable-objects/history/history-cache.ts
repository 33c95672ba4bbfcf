import { DurableObject } from "cloudflare:workers";
import { type HistoryRows, readHistoryRows } from "../../platform/history-store.ts";
import { answerFromCache, type CachedPage, isWorthKeeping } from "./newest-page.ts";

/**
 * One API key's newest history page (GET /history with no cursor, skip, or status filter), in memory:
 * filled from the D1 primary on a miss, dropped by every write that changes what the page shows (task
 * created or withdrawn, status change, delete: `invalidateHistory` in platform/history-invalidation.ts), and
 * never trusted for longer than HISTORY_CACHE_TTL_MS. Nothing is stored; a restarted object refills.
 */
export class HistoryCache extends DurableObject<Env> {
  private page: CachedPage | null = null;
  /** Moved on by every invalidation: a fill whose D1 read began before one does not keep what it read. */
  private generation = 0;

  /** The key's newest `limit` entries and its total. */
  async newestPage(ownerKeyId: string, limit: number): Promise<HistoryRows> {
    const cached = answerFromCache(this.page, limit, Date.now());
    if (cached) return cached;
    const generation = this.generation;
    const readAt = Date.now();
    // Another request (an invalidation included) may run while this one awaits D1.
    const rows = await readHistoryRows(this.env, { ownerKeyId, limit, skip: 0 }, "primary");
    if (generation === this.generation && isWorthKeeping(rows)) this.page = { limit, rows, readAt };
    return rows;
  }

  /** Forgets the page; the next request reads D1. */
  invalidate(): void {
    this.generation++;
    this.page = null;
  }
}
