import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { db } from "../../platform/db.ts";
import { idempotencyKeys, jobs } from "../../platform/schema.ts";
import { bearer, call, createKey, resetDispatcher } from "./helpers.ts";
import { accepted, bytes, fixtureUrl } from "./ingest-helpers.ts";

/** A retried create with the same Idempotency-Key returns the first task instead of a duplicate. */

beforeEach(resetDispatcher);

function enqueueUrl(key: string, body: unknown, idempotencyKey?: string): Promise<Response> {
  return call("/transcribe", {
    method: "POST",
    headers: {
      ...bearer(key),
      "content-type": "application/json",
      ...(idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {}),
    },
    body: JSON.stringify(body),
  });
}

function upload(key: string, idempotencyKey: string): Promise<Response> {
  const form = new FormData();
  form.append("file", new File([bytes(4096, 3)], "clip.mp3", { type: "audio/mpeg" }));
  return call("/transcribe/upload", {
    method: "POST",
    headers: { ...bearer(key), "Idempotency-Key": idempotencyKey },
    body: form,
  });
}

async function tasksOf(ownerKeyId: string): Promise<number> {
  return (await db(env).select().from(jobs).where(eq(jobs.owner_key_id, ownerKeyId)).all()).length;
}

describe("Idempotency-Key", () => {
  it("returns the first request's task to a retry, marked as replayed, and creates nothing new", async () => {
    const { id, key } = await createKey();
    const body = { file_url: fixtureUrl("/audio.mp3") };
    const first = await enqueueUrl(key, body, "retry-1");
    const firstTask = await accepted(first);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await enqueueUrl(key, body, "retry-1");
    expect((await accepted(again)).task_id).toBe(firstTask.task_id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await tasksOf(id)).toBe(1);
    // Without a key, or with another key, each request is its own task.
    await accepted(await enqueueUrl(key, body));
    await accepted(await enqueueUrl(key, body, "retry-2"));
    expect(await tasksOf(id)).toBe(3);
  });

  it("refuses the same key with a different request (422), and scopes keys to the API key", async () => {
    const mine = await createKey("mine");
    const theirs = await createKey("theirs");
    await accepted(await enqueueUrl(mine.key, { file_url: fixtureUrl("/audio.mp3") }, "shared"));
    const reused = await enqueueUrl(
      mine.key,
      { file_url: fixtureUrl("/audio.mp3"), language: "vi" },
      "shared",
    );
    expect(reused.status).toBe(422);
    expect(await reused.json()).toMatchObject({
      code: "validation_error",
      detail: [{ loc: ["header", "Idempotency-Key"], type: "idempotency_key_reused" }],
    });
    await accepted(await enqueueUrl(theirs.key, { file_url: fixtureUrl("/audio.mp3") }, "shared"));
    expect(await tasksOf(theirs.id)).toBe(1);
  });

  it("lets a retry go ahead after a refused first request, and refuses malformed keys", async () => {
    const { id, key } = await createKey();
    const refused = await enqueueUrl(key, { file_url: fixtureUrl("/audio.mp3"), language: "Klingon" }, "k1");
    expect(refused.status).toBe(400);
    await accepted(await enqueueUrl(key, { file_url: fixtureUrl("/audio.mp3") }, "k1"));
    expect(await tasksOf(id)).toBe(1);
    for (const bad of ["x".repeat(256), "has space", "tab\tkey"]) {
      expect((await enqueueUrl(key, { file_url: fixtureUrl("/audio.mp3") }, bad)).status, bad).toBe(422);
    }
  });

  it("forgets a key after 24 hours", async () => {
    const { id, key } = await createKey();
    const body = { file_url: fixtureUrl("/audio.mp3") };
    const first = await accepted(await enqueueUrl(key, body, "old"));
    await db(env)
      .update(idempotencyKeys)
      .set({ created_at: Date.now() - 25 * 3600 * 1000 })
      .where(eq(idempotencyKeys.key, "old"));
    const later = await accepted(await enqueueUrl(key, body, "old"));
    expect(later.task_id).not.toBe(first.task_id);
    expect(await tasksOf(id)).toBe(2);
  });

  it("answers a replayed upload before reading its body: the file is stored once", async () => {
    const { key } = await createKey();
    const before = (await env.MEDIA.list({ prefix: "uploads/" })).objects.length;
    const first = await accepted(await upload(key, "upload-1"));
    const again = await upload(key, "upload-1");
    expect((await accepted(again)).task_id).toBe(first.task_id);
    expect((await env.MEDIA.list({ prefix: "uploads/" })).objects.length).toBe(before + 1);
  });
});
