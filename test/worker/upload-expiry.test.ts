/**
 * UPLOAD_UNUSED_TTL_SEC (default 86,400): the every-minute cron sweep deletes an upload no task was
 * made from once it is that old, its R2 object and its `uploads` row, a bounded batch a minute; an
 * upload a task uses is never touched by it.
 */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../../platform/db.ts";
import { jobs, uploads } from "../../platform/schema.ts";
import worker from "../../worker/index.ts";
import { newObjectKey } from "../../worker/ingest/object-keys.ts";
import { recordUpload } from "../../worker/ingest/upload-registry.ts";
import type { PresignResponse } from "../../worker/schemas/uploads.ts";
import { bearer, call, createKey, TRANSCRIBE_PARAMS } from "./helpers.ts";
import { accepted, bytes, callMinted, postJson } from "./ingest-helpers.ts";

const DAY_MS = 86_400_000;

async function runCron(): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController(), env, ctx);
  await waitOnExecutionContext(ctx);
}

/** Presigns an upload and PUTs its bytes, as a client that never makes a task of it. */
async function strayUpload(key: string): Promise<string> {
  const response = await postJson("/uploads/presign", key, { filename: "a.mp3", content_type: "audio/mpeg" });
  const { object_key, upload_url } = (await response.json()) as PresignResponse;
  const data = bytes(2048, 7);
  const stored = await callMinted(upload_url, {
    method: "PUT",
    headers: { "content-type": "audio/mpeg", "content-length": String(data.byteLength) },
    body: data,
  });
  expect(stored.status).toBe(200);
  return object_key;
}

/** Uploads through POST /transcribe/upload: a task is made from it. */
async function usedUpload(key: string): Promise<string> {
  const form = new FormData();
  form.append("file", new File([bytes(2048, 3)], "talk.mp3", { type: "audio/mpeg" }));
  const { task_id } = await accepted(
    await call("/transcribe/upload", { method: "POST", headers: bearer(key), body: form }),
  );
  const row = await db(env).select().from(jobs).where(eq(jobs.task_id, task_id)).get();
  if (row?.source.type !== "object") throw new Error("an upload task stores an object source");
  return row.source.object_key;
}

const age = (objectKey: string, ms: number) =>
  db(env)
    .update(uploads)
    .set({ createdAt: Date.now() - ms })
    .where(eq(uploads.objectKey, objectKey));

const rowOf = async (objectKey: string) =>
  (await db(env).select().from(uploads).where(eq(uploads.objectKey, objectKey)).get()) ?? null;

describe("UPLOAD_UNUSED_TTL_SEC", () => {
  it("deletes an upload no task uses once a day old (object and row), keeps a used one and a recent one", async () => {
    const { key } = await createKey("upload-expiry");
    const stray = await strayUpload(key);
    const recent = await strayUpload(key);
    const used = await usedUpload(key);
    await age(stray, DAY_MS + 60_000);
    await age(recent, DAY_MS - 60_000);
    await age(used, 3 * DAY_MS);

    await runCron();

    expect(await env.MEDIA.head(stray)).toBeNull();
    expect(await rowOf(stray)).toBeNull();
    expect((await call(`/media/${stray}`)).status).toBe(404);
    expect(await env.MEDIA.head(recent)).not.toBeNull();
    expect(await rowOf(recent)).not.toBeNull();
    expect(await env.MEDIA.head(used)).not.toBeNull();
    expect(await rowOf(used)).not.toBeNull();
    // a later sweep still leaves the used upload alone
    await runCron();
    expect(await env.MEDIA.head(used)).not.toBeNull();
  });

  it("deletes at most 100 a minute, the oldest first, and gets past any number of uploads in use", async () => {
    const { id } = await createKey("upload-expiry-batch");
    const stored = async (count: number, agedMs: (i: number) => number) => {
      const keys = Array.from({ length: count }, () => newObjectKey("clip.mp3"));
      for (const [i, objectKey] of keys.entries()) {
        await recordUpload(env, { objectKey, ownerKeyId: id, contentType: "audio/mpeg" });
        await env.MEDIA.put(objectKey, bytes(16));
        await age(objectKey, agedMs(i));
      }
      return keys;
    };
    // a whole batch of uploads in use, older than every stray one: the sweep must not stall on them
    const inUse = await stored(100, () => 5 * DAY_MS);
    for (const objectKey of inUse) {
      await db(env)
        .insert(jobs)
        .values({
          task_id: crypto.randomUUID(),
          owner_key_id: id,
          kind: "transcribe",
          lane: "batch",
          status: "done",
          params: TRANSCRIBE_PARAMS,
          source: { type: "object", object_key: objectKey },
          progress: 100,
          created_at: Date.now(),
          updated_at: Date.now(),
        });
    }
    const strays = await stored(130, (i) => 2 * DAY_MS - i * 1000);
    const left = async () => {
      const rows = await db(env).select().from(uploads).where(eq(uploads.ownerKeyId, id)).all();
      return rows.filter((row) => strays.includes(row.objectKey)).length;
    };

    const swept: number[] = [];
    for (let minute = 0; minute < 3; minute++) {
      await runCron();
      swept.push(await left());
    }
    // the first minute looks at the 100 uploads in use, the next deletes 100 strays (oldest first), then the rest
    expect(swept).toEqual([130, 30, 0]);
    for (const objectKey of strays) expect(await env.MEDIA.head(objectKey)).toBeNull();
    for (const objectKey of inUse) expect(await env.MEDIA.head(objectKey)).not.toBeNull();
  });
});
