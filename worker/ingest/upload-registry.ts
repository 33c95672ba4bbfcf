import { and, eq, isNull } from "drizzle-orm";
import { db } from "../../platform/db.ts";
import { uploads } from "../../platform/schema.ts";

/**
 * Which API key an uploaded object belongs to. Recorded when the key is handed out, so ownership holds
 * whichever way the bytes arrive (R2's S3 API, the signed PUT route); a form upload's row is written
 * in the same D1 batch as the task made from it (`createTask`'s `upload`).
 */

export interface UploadRecord {
  objectKey: string;
  ownerKeyId: string;
  contentType: string;
}

/** Records that `ownerKeyId` owns `objectKey`. */
export async function recordUpload(env: Env, upload: UploadRecord): Promise<void> {
  await db(env)
    .insert(uploads)
    .values({ ...upload, createdAt: Date.now() });
}

/** The upload when `ownerKeyId` owns it; another key's upload is as unknown as a missing one. */
export async function findOwnUpload(
  env: Env,
  objectKey: string,
  ownerKeyId: string,
): Promise<UploadRecord | null> {
  const row = await db(env)
    .select({
      objectKey: uploads.objectKey,
      ownerKeyId: uploads.ownerKeyId,
      contentType: uploads.contentType,
    })
    .from(uploads)
    .where(and(eq(uploads.objectKey, objectKey), eq(uploads.ownerKeyId, ownerKeyId)))
    .get();
  return row ?? null;
}

/**
 * Takes the one PUT a signed upload URL grants: true for the first caller, false once the bytes were
 * stored (or while another PUT of the same URL is storing them). Atomic in D1, so two PUTs racing each
 * other cannot both write.
 */
export async function claimUploadPut(env: Env, objectKey: string, ownerKeyId: string): Promise<boolean> {
  const claimed = await db(env)
    .update(uploads)
    .set({ putAt: Date.now() })
    .where(and(eq(uploads.objectKey, objectKey), eq(uploads.ownerKeyId, ownerKeyId), isNull(uploads.putAt)))
    .returning({ objectKey: uploads.objectKey });
  return claimed.length > 0;
}

/** Gives the PUT back after it failed (cut short, too large, storage error), so the client may retry. */
export async function releaseUploadPut(env: Env, objectKey: string): Promise<void> {
  await db(env).update(uploads).set({ putAt: null }).where(eq(uploads.objectKey, objectKey));
}

/** Forgets an upload whose object was deleted (with its task's media, worker/tasks/delete.ts). */
export async function forgetUpload(env: Env, objectKey: string): Promise<void> {
  await db(env).delete(uploads).where(eq(uploads.objectKey, objectKey));
}
