import { and, asc, inArray, isNull, lt, sql } from "drizzle-orm";
import { workerConfig } from "../../platform/config.ts";
import { db } from "../../platform/db.ts";
import { jobs, uploads } from "../../platform/schema.ts";

/** Uploads one cron run looks at (the rest wait for the next minute). */
const SWEEP_LIMIT = 100;
/** Keys per statement: D1 binds at most 100 parameters to one. */
const KEYS_PER_STATEMENT = 50;

const chunks = (keys: string[]) =>
  Array.from({ length: Math.ceil(keys.length / KEYS_PER_STATEMENT) }, (_, i) =>
    keys.slice(i * KEYS_PER_STATEMENT, (i + 1) * KEYS_PER_STATEMENT),
  );

/**
 * UPLOAD_UNUSED_TTL_SEC: the every-minute sweep of uploads no task was made from. It looks at the
 * oldest uploads past that age it has not found in use yet: one a task of its owner was made from is
 * marked in use and never looked at again (its task's delete or retention removes it); any other loses
 * its R2 object and its row, so a stray upload is not served from the API origin for ever. Returns how
 * many were deleted.
 */
export async function sweepUnusedUploads(env: Env, now = Date.now()): Promise<number> {
  const { uploadUnusedTtlMs } = workerConfig(env);
  const candidates = await db(env)
    .select({
      objectKey: uploads.objectKey,
      // a task uses only its owner's uploads, so the owner's index narrows the search
      inUse: sql<number>`exists (select 1 from ${jobs} where ${jobs.owner_key_id} = ${uploads.ownerKeyId}
        and json_extract(${jobs.source}, '$.object_key') = ${uploads.objectKey})`,
    })
    .from(uploads)
    .where(and(isNull(uploads.inUseAt), lt(uploads.createdAt, now - uploadUnusedTtlMs)))
    .orderBy(asc(uploads.createdAt))
    .limit(SWEEP_LIMIT);
  const inUse = candidates.filter((c) => c.inUse).map((c) => c.objectKey);
  for (const keys of chunks(inUse))
    await db(env).update(uploads).set({ inUseAt: now }).where(inArray(uploads.objectKey, keys));
  const unused = candidates.filter((c) => !c.inUse).map((c) => c.objectKey);
  if (unused.length === 0) return 0;
  // The object first: a crash in between leaves a row the next minute deletes, never an object served
  // from the API origin with no row left to find it by.
  await env.MEDIA.delete(unused);
  for (const keys of chunks(unused)) await db(env).delete(uploads).where(inArray(uploads.objectKey, keys));
  console.log(JSON.stringify({ event: "unused_uploads_swept", count: unused.length }));
  return unused.length;
}
