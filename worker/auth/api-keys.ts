import { and, eq, isNull } from "drizzle-orm";
import { db } from "../../platform/db.ts";
import { apiKeys } from "../../platform/schema.ts";
import { hashApiKey, KEY_PREFIX } from "./key-material.ts";

/** Finds the live (not revoked) key with this secret. */
export async function findActiveKey(env: Env, key: string): Promise<{ id: string; name: string } | null> {
  if (!key.startsWith(KEY_PREFIX) || key.length > 200) return null;
  const keyHash = await hashApiKey(key);
  const row = await db(env)
    .select({ id: apiKeys.id, name: apiKeys.name })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
    .get();
  return row ?? null;
}
