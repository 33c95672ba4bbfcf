import { and, eq, isNull } from "drizzle-orm";
import { workerConfig } from "../../platform/config.ts";
import { db } from "../../platform/db.ts";
import { type NodeIdentity, SHARED_NODE } from "../../platform/node-identity.ts";
import { nodeIdentities } from "../../platform/schema.ts";
import { cachedIdentity } from "./key-cache.ts";
import { hashSecret, NODE_TOKEN_PREFIX } from "./key-material.ts";

/** Longer than any token we make; a longer one is refused before it is hashed. */
const MAX_TOKEN_LENGTH = 200;

/**
 * The node a bearer token identifies, or null. The shared NODE_TOKEN counts only where it is set
 * (compared in constant time); a per-node token (`vxn_…`) must name a row that is not revoked, and
 * is refused within 2 × AUTH_CACHE_TTL_SEC of its revocation (the credential caches).
 */
export async function identifyNode(env: Env, token: string): Promise<NodeIdentity | null> {
  const config = workerConfig(env);
  if (config.nodeToken !== null && (await tokensEqual(token, config.nodeToken))) return SHARED_NODE;
  if (!token.startsWith(NODE_TOKEN_PREFIX) || token.length > MAX_TOKEN_LENGTH) return null;
  const tokenHash = await hashSecret(token);
  return cachedIdentity("node", tokenHash, config.authCacheTtlMs, async () => {
    const row = await db(env)
      .select({ id: nodeIdentities.id, name: nodeIdentities.name })
      .from(nodeIdentities)
      .where(and(eq(nodeIdentities.tokenHash, tokenHash), isNull(nodeIdentities.revokedAt)))
      .get();
    return row ?? null;
  });
}

/** Constant-time comparison; hashing first makes the lengths equal without leaking them. */
async function tokensEqual(given: string, expected: string): Promise<boolean> {
  const encoder = new TextEncoder();
  const [a, b] = await Promise.all([
    crypto.subtle.digest("SHA-256", encoder.encode(given)),
    crypto.subtle.digest("SHA-256", encoder.encode(expected)),
  ]);
  return crypto.subtle.timingSafeEqual(a, b);
}
