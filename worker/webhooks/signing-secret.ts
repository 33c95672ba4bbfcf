import { and, eq, isNull } from "drizzle-orm";
import { db } from "../../platform/db.ts";
import { apiKeys } from "../../platform/schema.ts";
import { newWebhookSecret } from "../auth/key-material.ts";

/**
 * Each API key's webhook signing secret (`whsec_` + base64 of 24 random bytes, the Standard Webhooks
 * format). Made on first use (or by `npm run keys -- webhook-secret ID`); after a rotation deliveries
 * carry a signature by the previous secret too for ROTATION_GRACE_MS, so receivers can switch over.
 */

/** How long after a rotation the previous secret still signs. */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

/**
 * The secrets a delivery for `keyId` is signed with: the current one first, then the previous one
 * while its grace lasts. Makes the key's first secret when it has none (the first writer wins).
 */
export async function signingSecrets(env: Env, keyId: string, now = Date.now()): Promise<string[]> {
  const read = () =>
    db(env)
      .select({
        current: apiKeys.webhookSecret,
        previous: apiKeys.webhookSecretPrevious,
        rotatedAt: apiKeys.webhookSecretRotatedAt,
      })
      .from(apiKeys)
      .where(eq(apiKeys.id, keyId))
      .get();
  let row = await read();
  if (!row) throw new Error(`API key ${keyId} is gone`);
  if (!row.current) {
    await db(env)
      .update(apiKeys)
      .set({ webhookSecret: newWebhookSecret() })
      .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.webhookSecret)));
    row = await read();
    if (!row?.current) throw new Error(`API key ${keyId} has no webhook secret`);
  }
  const inGrace = row.previous && row.rotatedAt !== null && now - row.rotatedAt < ROTATION_GRACE_MS;
  return inGrace && row.previous ? [row.current, row.previous] : [row.current];
}
