/**
 * Two short-lived caches in front of the D1 key table, so most requests authenticate without a D1
 * round trip: a per-isolate map (no I/O at all) and the Cache API (shared by the isolates of a
 * location). Only live keys are cached, keyed by the key's SHA-256 (or, for socket tokens, which name
 * their key by id, by `id:<key id>`), never by the key.
 *
 * Revocation bound: an entry lives `ttlMs` in the Cache API and, copied from there, at most `ttlMs`
 * more in an isolate, so a revoked key stops working within 2 × AUTH_CACHE_TTL_SEC (30 s by default).
 */

export interface CachedKey {
  id: string;
  name: string;
}

/** Isolate-level entries kept at most; the oldest go first. */
const MAX_ISOLATE_ENTRIES = 1000;
/** Cache API entries live under a name nothing else answers to. */
const CACHE_ORIGIN = "https://api-keys.voxedge.internal/";

const isolate = new Map<string, { key: CachedKey; expiresAt: number }>();

function remember(hash: string, key: CachedKey, ttlMs: number): void {
  isolate.delete(hash);
  isolate.set(hash, { key, expiresAt: Date.now() + ttlMs });
  if (isolate.size > MAX_ISOLATE_ENTRIES) isolate.delete(isolate.keys().next().value as string);
}

/**
 * The live key with this hash: from the isolate, else the Cache API, else `load` (D1), whose positive
 * answer is cached in both. `ttlMs` 0 turns caching off.
 *
 * @example const key = await cachedKey(hash, 15_000, () => loadFromD1(hash));
 */
export async function cachedKey(
  hash: string,
  ttlMs: number,
  load: () => Promise<CachedKey | null>,
): Promise<CachedKey | null> {
  if (ttlMs <= 0) return load();
  const local = isolate.get(hash);
  if (local && local.expiresAt > Date.now()) return local.key;
  isolate.delete(hash);
  const request = new Request(`${CACHE_ORIGIN}${hash}`);
  const shared = await caches.default.match(request);
  if (shared) {
    const key = (await shared.json()) as CachedKey;
    remember(hash, key, ttlMs);
    return key;
  }
  const key = await load();
  if (key) {
    remember(hash, key, ttlMs);
    const seconds = Math.max(1, Math.floor(ttlMs / 1000));
    await caches.default.put(
      request,
      Response.json(key, { headers: { "cache-control": `max-age=${seconds}` } }),
    );
  }
  return key;
}
