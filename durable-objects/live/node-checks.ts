/**
 * When the LiveHub re-checks the node identities it keeps sockets open for. A socket was authenticated
 * once, at its upgrade; a node revoked after that would keep its hub socket (and the streams the hub
 * hands it) for ever, so the hub asks D1 again on register, on load reports and on its alarm, at most
 * once per identity per period: AUTH_CACHE_TTL_SEC, so a revoked node leaves the live plane within the
 * same 2 × AUTH_CACHE_TTL_SEC its HTTP calls are refused in. Each hub shard reads D1 itself rather than the
 * Worker's credential caches (worker/auth/key-cache.ts): an identity's sockets are all in one shard
 * (hub-shards.ts), so a read per identity per period is already the cache, and a D1 read works the same under workerd locally and on Cloudflare,
 * with no second TTL of staleness stacked on the Cache API's.
 */
import { liveSession, translationRoom } from "../../platform/stubs.ts";
import type { NodeAttachment } from "./engine-nodes.ts";
import type { DialledStream } from "./stream-dials.ts";

/** The shortest re-check period, for AUTH_CACHE_TTL_SEC = 0 (no cache): one D1 read a second at most. */
const MIN_RECHECK_MS = 1_000;

/** How often the hub re-checks its nodes' identities. */
export function recheckEveryMs(authCacheTtlMs: number): number {
  return Math.max(MIN_RECHECK_MS, authCacheTtlMs);
}

/**
 * The identities among these sockets whose last check is `everyMs` old or older (or never made).
 *
 * @example dueIdentities([{ identity_id: "n1", checked_at: 0 }], Date.now(), 15_000); // ["n1"]
 */
export function dueIdentities(
  attachments: Iterable<Pick<NodeAttachment, "identity_id" | "checked_at"> | null>,
  now: number,
  everyMs: number,
): string[] {
  const due = new Set<string>();
  for (const attachment of attachments) {
    if (attachment && now - attachment.checked_at >= everyMs) due.add(attachment.identity_id);
  }
  return [...due];
}

/**
 * Tells the object of each stream a revoked identity served to drop its engine: a LiveSession ends (and
 * releases its slot and gate), a room warns the speaker and lets the stream go.
 */
export async function dropEngines(env: Env, dropped: readonly DialledStream[]): Promise<void> {
  await Promise.all(
    dropped.map(({ stream_id, host }) =>
      (host.object === "session"
        ? liveSession(env, stream_id).dropEngine()
        : translationRoom(env, host.conversation_id).dropEngine(stream_id)
      ).catch((error: unknown) =>
        console.error(JSON.stringify({ live_hub: "drop engine failed", stream_id, error: String(error) })),
      ),
    ),
  );
}
