/**
 * Two short-lived caches in front of the D1 credential tables (API keys, node identities), so most
 * requests authenticate without a D1 round trip: a per-isolate map (no I/O at all) and the Cache API
 * (shared by the isolates of a location). Only live credentials are cached, keyed by their kind and the
 * secret's SHA-256 (or, for socket tokens, which name their key by id, by `id:<key id>`), never by the
 * secret: an API key's entry can never answer for a node or back.
 *
 * Revocation bound: an entry lives `ttlMs` in the Cache API and, copied from there, at most `ttlMs`
 * more in an isolate, so a revoked credential stops working within 2 × AUTH_CACHE_TTL_SEC (30 s by
 * default).
 */

/** Who a live credential belongs to. */
export interface CachedIdentity {
  id: string;
  name: string;
}

/** The tables the cache stands in front of; each has its own entries. */
export type CredentialScope = "api-key" | "node";

/** Isolate-level entries kept at most; the oldest go first. */
const MAX_ISOLATE_ENTRIES = 1000;
/** Cache API entries live under a name nothing else answers to. */
const CACHE_ORIGIN = "https://credentials.voxedge.internal/";

const isolate = new Map<string, { identity: CachedIdentity; expiresAt: number }>();

function remember(entry: string, identity: CachedIdentity, ttlMs: number): void {
  isolate.delete(entry);
  isolate.set(entry, { identity, expiresAt: Date.now() + ttlMs });
  if (isolate.size > MAX_ISOLATE_ENTRIES) isolate.delete(isolate.keys().next().value as string);
}

/**
 * The live credential of this kind with this hash: from the isolate, else the Cache API, else `load`
 * (D1), whose positive answer is cached in both. `ttlMs` 0 turns caching off.
 *
 * @example const key = await cachedIdentity("api-key", hash, 15_000, () => loadFromD1(hash));
 */
export async function cachedIdentity<T extends CachedIdentity>(
  scope: CredentialScope,
  hash: string,
  ttlMs: number,
  load: () => Promise<T | null>,
): Promise<T | null> {
  if (ttlMs <= 0) return load();
  const entry = `${scope}/${hash}`;
  const local = isolate.get(entry);
  if (local && local.expiresAt > Date.now()) return local.identity as T;
  isolate.delete(entry);
  const request = new Request(`${CACHE_ORIGIN}${entry}`);
  const shared = await caches.default.match(request);
  if (shared) {
    const identity = (await shared.json()) as T;
    remember(entry, identity, ttlMs);
    return identity;
  }
  const identity = await load();
  if (identity) {
    remember(entry, identity, ttlMs);
    const seconds = Math.max(1, Math.floor(ttlMs / 1000));
    await caches.default.put(
      request,
      Response.json(identity, { headers: { "cache-control": `max-age=${seconds}` } }),
    );
  }
  return identity;
}
