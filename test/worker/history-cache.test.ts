/**
 * #29.6 the history cache: a key's newest history page is answered by its HistoryCache object, which
 * every write that changes the page invalidates before its caller gets an answer. Another key's tasks
 * never appear; a deleted task, a new task and a status change show on the next page at once; a cached
 * page answers exactly as a D1 read does for any limit it covers.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import type { HistoryCache } from "../../durable-objects/history/history-cache.ts";
import {
  answerFromCache,
  type CachedPage,
  HISTORY_CACHE_TTL_MS,
} from "../../durable-objects/history/newest-page.ts";
import { db } from "../../platform/db.ts";
import { readHistoryRows } from "../../platform/history-store.ts";
import { jobs } from "../../platform/schema.ts";
import { historyCache } from "../../platform/stubs.ts";
import { changeTaskStatus } from "../../platform/task-store.ts";
import { TranscriptionResult } from "../../protocol/transcription.ts";
import type { HistoryPage } from "../../worker/schemas/history.ts";
import { bearer, call, createKey, createTranscription, resetDispatcher } from "./helpers.ts";
import { sampleResult } from "./node-client.ts";

async function history(key: string, query = ""): Promise<HistoryPage> {
  const response = await call(`/history${query}`, { headers: bearer(key) });
  expect(response.status).toBe(200);
  return (await response.json()) as HistoryPage;
}

const ids = (page: HistoryPage) => page.jobs.map((entry) => entry.task_id);

describe("history cache", () => {
  let key: { id: string; key: string };
  beforeEach(async () => {
    await resetDispatcher();
    key = await createKey();
  });

  it("answers from memory until a write invalidates it (a row changed behind its back stays unseen)", async () => {
    const task = await createTranscription(key.id);
    expect((await history(key.key)).jobs[0]?.status).toBe("queued");
    // A D1 write that skips the store's invalidation: the cached page does not see it.
    await db(env).update(jobs).set({ status: "processing" }).where(eq(jobs.task_id, task.task_id));
    expect((await history(key.key)).jobs[0]?.status).toBe("queued");
    await historyCache(env, key.id).invalidate();
    expect((await history(key.key)).jobs[0]?.status).toBe("processing");
  });

  it("a fill that an invalidation overtook does not keep what it read", async () => {
    const task = await createTranscription(key.id);
    await runInDurableObject(historyCache(env, key.id), async (cache: HistoryCache) => {
      // The fill's D1 read is under way when a write's invalidation arrives.
      const filling = cache.newestPage(key.id, 20);
      cache.invalidate();
      expect((await filling).records[0]?.status).toBe("queued");
    });
    // Nothing was kept: a row changed without an invalidation is read as it now is.
    await db(env).update(jobs).set({ status: "processing" }).where(eq(jobs.task_id, task.task_id));
    expect((await history(key.key)).jobs[0]?.status).toBe("processing");
  });

  it("another key's tasks never appear on a key's newest page", async () => {
    const other = await createKey("other");
    const mine = await createTranscription(key.id);
    const theirs = await createTranscription(other.id);
    expect(ids(await history(key.key))).toEqual([mine.task_id]);
    expect(ids(await history(other.key))).toEqual([theirs.task_id]);
    const theirsLater = await createTranscription(other.id);
    const page = await history(key.key);
    expect(ids(page)).toEqual([mine.task_id]);
    expect(page.total).toBe(1);
    expect(ids(await history(other.key))).toEqual([theirsLater.task_id, theirs.task_id]);
  });

  it("a deleted task disappears from the next page at once, its total with it", async () => {
    const tasks = [];
    for (let i = 0; i < 3; i++) tasks.push(await createTranscription(key.id));
    const before = await history(key.key);
    expect(before.total).toBe(3);
    expect(await history(key.key)).toEqual(before);
    const gone = tasks[1]?.task_id as string;
    const deleted = await call(`/transcribe/${gone}`, { method: "DELETE", headers: bearer(key.key) });
    expect(deleted.status).toBe(204);
    const after = await history(key.key);
    expect(ids(after)).not.toContain(gone);
    expect(after.total).toBe(2);
  });

  it("a new task and a status change show on the next page at once", async () => {
    const first = await createTranscription(key.id);
    expect(ids(await history(key.key))).toEqual([first.task_id]);
    const second = await createTranscription(key.id);
    expect(ids(await history(key.key))).toEqual([second.task_id, first.task_id]);
    await changeTaskStatus(env, first.task_id, { status: "processing" });
    const result = TranscriptionResult.parse(sampleResult("xin chào"));
    await changeTaskStatus(env, first.task_id, { status: "done", result });
    const page = await history(key.key);
    expect(page.jobs[1]).toMatchObject({
      task_id: first.task_id,
      status: "done",
      result: { text: "xin chào" },
    });
  });

  it("a cached page answers any limit it covers as a D1 read does, and reads D1 for more", async () => {
    const tasks = [];
    for (let i = 0; i < 3; i++) tasks.push(await createTranscription(key.id));
    const fromD1 = async (limit: number) =>
      (await readHistoryRows(env, { ownerKeyId: key.id, limit, skip: 0 }, "primary")).records.map(
        (record) => record.task_id,
      );
    // A page of 2 of 3 entries covers limits 1 and 2, not 3.
    const two = await history(key.key, "?limit=2");
    expect(ids(two)).toEqual(await fromD1(2));
    const one = await history(key.key, "?limit=1");
    expect(ids(one)).toEqual(await fromD1(1));
    expect(one.next_cursor).toEqual(expect.any(String));
    const three = await history(key.key, "?limit=3");
    expect(ids(three)).toEqual(await fromD1(3));
    expect(three.next_cursor).toEqual(expect.any(String));
    // The whole list (3 of 3) covers every limit; a page shorter than asked has no next cursor.
    const ten = await history(key.key, "?limit=10");
    expect(ids(ten)).toEqual(await fromD1(10));
    expect(ten.next_cursor).toBeNull();
    const next = await history(key.key, `?limit=2&cursor=${two.next_cursor}`);
    expect(ids(next)).toEqual([tasks[0]?.task_id]);
  });
});

describe("answerFromCache", () => {
  const page = (records: number, limit: number): CachedPage => ({
    limit,
    rows: {
      records: Array.from({ length: records }, (_, i) => ({ task_id: `t${i}` })) as never,
      total: records,
    },
    readAt: 1_000,
  });

  it("answers until HISTORY_CACHE_TTL_MS after its read began, then no longer", () => {
    expect(answerFromCache(page(3, 5), 5, 1_000 + HISTORY_CACHE_TTL_MS - 1)).not.toBeNull();
    expect(answerFromCache(page(3, 5), 5, 1_000 + HISTORY_CACHE_TTL_MS)).toBeNull();
    expect(answerFromCache(null, 5, 1_000)).toBeNull();
  });

  it("covers limits up to its own, and any limit when it holds the whole list", () => {
    expect(answerFromCache(page(5, 5), 2, 1_000)?.records).toHaveLength(2);
    expect(answerFromCache(page(5, 5), 6, 1_000)).toBeNull();
    expect(answerFromCache(page(3, 5), 100, 1_000)?.records).toHaveLength(3);
  });
});
