/**
 * A LiveHub shard's in-memory index of its node sockets, so that assigning and releasing a stream
 * never reads every socket's attachment: engines are kept in buckets by the slots they have free (within
 * their identity's LIVE_NODE_MAX_CAPACITY), each stream id points at the socket that holds it, and each
 * identity's held streams are summed. The attachments stay the truth (they survive hibernation); the
 * index is rebuilt from them once when the object wakes, and every change goes through `set`.
 */
import { type NodeAttachment, usedStreams } from "./engine-nodes.ts";

/** What a shard offers: the Worker asks two shards and gives the stream to the freer. */
export interface ShardLoad {
  /** Registered engines (capacity > 0). */
  engines: number;
  /** Stream slots free over those engines. */
  free: number;
}

/**
 * @example
 * const index = NodeIndex.of(ctx.getWebSockets(NODE_TAG), 4);
 * const engine = index.pick(true, (ws) => ws.readyState === WebSocket.OPEN);
 */
export class NodeIndex {
  readonly #attachments = new Map<WebSocket, NodeAttachment>();
  readonly #used = new Map<WebSocket, Set<string>>();
  readonly #streamSocket = new Map<string, WebSocket>();
  readonly #identityUsed = new Map<string, number>();
  readonly #identitySockets = new Map<string, Set<WebSocket>>();
  /** Free slots → registered engines with that many, longest at that count first. */
  readonly #buckets = new Map<number, Set<WebSocket>>();
  readonly #bucketOf = new Map<WebSocket, number>();

  constructor(private readonly maxPerIdentity: number) {}

  /** The index of these sockets, engines idle longest first among equals. */
  static of(sockets: readonly WebSocket[], maxPerIdentity: number): NodeIndex {
    const index = new NodeIndex(maxPerIdentity);
    const known = sockets.flatMap((ws) => {
      const attachment = ws.deserializeAttachment() as NodeAttachment | null;
      return attachment ? [{ ws, attachment }] : [];
    });
    known.sort((a, b) => a.attachment.assigned_at - b.attachment.assigned_at);
    for (const { ws, attachment } of known) index.set(ws, attachment);
    return index;
  }

  get(ws: WebSocket): NodeAttachment | null {
    return this.#attachments.get(ws) ?? null;
  }

  sockets(): IterableIterator<[WebSocket, NodeAttachment]> {
    return this.#attachments.entries();
  }

  /** The socket of the engine holding `streamId`, if any. */
  holderOf(streamId: string): WebSocket | null {
    return this.#streamSocket.get(streamId) ?? null;
  }

  /** Records a socket's new attachment (the caller serialises it too). */
  set(ws: WebSocket, attachment: NodeAttachment): void {
    this.#forget(ws);
    const used = usedStreams(attachment);
    this.#attachments.set(ws, attachment);
    this.#used.set(ws, used);
    for (const id of used) this.#streamSocket.set(id, ws);
    const identity = attachment.identity_id;
    this.#identityUsed.set(identity, (this.#identityUsed.get(identity) ?? 0) + used.size);
    const siblings = this.#identitySockets.get(identity) ?? new Set();
    siblings.add(ws);
    this.#identitySockets.set(identity, siblings);
    this.#rebucket(identity, ws);
  }

  /** A socket closed. */
  delete(ws: WebSocket): void {
    const identity = this.#attachments.get(ws)?.identity_id;
    this.#forget(ws);
    if (identity !== undefined) this.#rebucket(identity, null);
  }

  /**
   * The engine to take the next stream: the most free slots, and among equals the one longest at that
   * count; null when none has a slot. With `needsSlot: false` (translate-only links) any engine will do.
   * `usable` turns away engines that went quiet (their socket still open in the index).
   */
  pick(needsSlot: boolean, usable: (ws: WebSocket, attachment: NodeAttachment) => boolean): WebSocket | null {
    const counts = [...this.#buckets.keys()].sort((a, b) => b - a);
    for (const free of counts) {
      if (needsSlot && free < 1) break;
      for (const ws of this.#buckets.get(free) ?? []) {
        const attachment = this.#attachments.get(ws);
        if (attachment && usable(ws, attachment)) return ws;
      }
    }
    return null;
  }

  load(): ShardLoad {
    let engines = 0;
    let free = 0;
    for (const [slots, sockets] of this.#buckets) {
      engines += sockets.size;
      free += Math.max(0, slots) * sockets.size;
    }
    return { engines, free };
  }

  #forget(ws: WebSocket): void {
    const before = this.#attachments.get(ws);
    if (!before) return;
    const used = this.#used.get(ws) ?? new Set<string>();
    for (const id of used) if (this.#streamSocket.get(id) === ws) this.#streamSocket.delete(id);
    const identity = before.identity_id;
    this.#identityUsed.set(identity, (this.#identityUsed.get(identity) ?? 0) - used.size);
    this.#identitySockets.get(identity)?.delete(ws);
    if (this.#identitySockets.get(identity)?.size === 0) {
      this.#identitySockets.delete(identity);
      this.#identityUsed.delete(identity);
    }
    this.#unbucket(ws);
    this.#attachments.delete(ws);
    this.#used.delete(ws);
  }

  /** Re-files the identity's engines whose free count changed (always `moved`, which goes last). */
  #rebucket(identity: string, moved: WebSocket | null): void {
    const identityLeft = this.maxPerIdentity - (this.#identityUsed.get(identity) ?? 0);
    for (const ws of this.#identitySockets.get(identity) ?? []) {
      const attachment = this.#attachments.get(ws);
      const capacity = attachment?.registered?.capacity ?? 0;
      if (capacity < 1) {
        this.#unbucket(ws);
        continue;
      }
      const free = Math.min(capacity - (this.#used.get(ws)?.size ?? 0), identityLeft);
      if (ws !== moved && this.#bucketOf.get(ws) === free) continue;
      this.#unbucket(ws);
      const bucket = this.#buckets.get(free) ?? new Set();
      bucket.add(ws);
      this.#buckets.set(free, bucket);
      this.#bucketOf.set(ws, free);
    }
  }

  #unbucket(ws: WebSocket): void {
    const free = this.#bucketOf.get(ws);
    if (free === undefined) return;
    const bucket = this.#buckets.get(free);
    bucket?.delete(ws);
    if (bucket?.size === 0) this.#buckets.delete(free);
    this.#bucketOf.delete(ws);
  }
}
