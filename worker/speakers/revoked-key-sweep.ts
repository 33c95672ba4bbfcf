import { inArray, isNotNull } from "drizzle-orm";
import { db } from "../../platform/db.ts";
import { apiKeys, speakers } from "../../platform/schema.ts";

/** Speakers one cron run deletes (D1 binds at most 100 parameters to a statement; the rest wait a minute). */
const SWEEP_LIMIT = 50;

/**
 * The every-minute sweep of enrolled speakers whose API key was revoked (`npm run keys -- revoke`, the
 * one way a key is taken away): their clips, then their rows, so a revoked key leaves no voice behind.
 * A clip goes before its row, so a crash in between leaves a row the next minute finds again. Returns
 * how many were deleted.
 */
export async function sweepRevokedKeySpeakers(env: Env): Promise<number> {
  const revoked = db(env).select({ id: apiKeys.id }).from(apiKeys).where(isNotNull(apiKeys.revokedAt));
  const doomed = await db(env)
    .select({ id: speakers.id, object_key: speakers.object_key })
    .from(speakers)
    .where(inArray(speakers.owner_key_id, revoked))
    .limit(SWEEP_LIMIT);
  if (doomed.length === 0) return 0;
  await env.MEDIA.delete(doomed.map((speaker) => speaker.object_key));
  await db(env)
    .delete(speakers)
    .where(
      inArray(
        speakers.id,
        doomed.map((speaker) => speaker.id),
      ),
    );
  console.log(JSON.stringify({ event: "revoked_key_speakers_swept", count: doomed.length }));
  return doomed.length;
}
