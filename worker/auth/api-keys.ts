import { and, eq, isNull, ne } from "drizzle-orm";
import { workerConfig } from "../../platform/config.ts";
import { db } from "../../platform/db.ts";
import { apiKeys, type KeyKind } from "../../platform/schema.ts";
import { cachedIdentity } from "./key-cache.ts";
import { hashSecret, KEY_PREFIX, SERVICE_KEY_PREFIX } from "./key-material.ts";

/** A live key: its id, name and kind (a cache entry written before kinds existed has none: `api`). */
export interface ActiveKey {
  id: string;
  name: string;
  kind: KeyKind;
}

/**
 * Finds the live (not revoked) API or service key with this secret. Answers from the key caches when it
 * can (a revoked key is refused within 2 × AUTH_CACHE_TTL_SEC), else from D1.
 */
export async function findActiveKey(env: Env, key: string): Promise<ActiveKey | null> {
  const known = key.startsWith(KEY_PREFIX) || key.startsWith(SERVICE_KEY_PREFIX);
  if (!known || key.length > 200) return null;
  const keyHash = await hashSecret(key);
  return cachedIdentity("api-key", keyHash, workerConfig(env).authCacheTtlMs, async () => {
    const row = await db(env)
      .select({ id: apiKeys.id, name: apiKeys.name, kind: apiKeys.kind })
      .from(apiKeys)
      .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
      .get();
    return row ?? null;
  });
}

/**
 * The live key with this id (a socket token names its key by id), through the same caches under their
 * own names, so a revoked key's tokens are refused within the same bound as the key itself.
 */
export async function findActiveKeyById(env: Env, id: string): Promise<ActiveKey | null> {
  if (id.length > 64) return null;
  return cachedIdentity("api-key", `id:${id}`, workerConfig(env).authCacheTtlMs, async () => {
    const row = await db(env)
      .select({ id: apiKeys.id, name: apiKeys.name, kind: apiKeys.kind })
      .from(apiKeys)
      // A user's owner row is no key: nothing names it as one.
      .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt), ne(apiKeys.kind, "user")))
      .get();
    return row ?? null;
  });
}
