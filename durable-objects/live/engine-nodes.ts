/**
 * The nodes connected to the LiveHub, read straight from its hibernatable sockets: each socket's
 * attachment says what the node registered and how loaded it is, and the runtime's auto-response
 * timestamp says when it last pinged. Nothing is kept in memory, so the hub can hibernate between events.
 */
import { LIVE_NODE_STALE_MS, type NodeLoad, type NodeRegister } from "../../protocol/live.ts";
import { attachmentOf } from "./sockets.ts";

/** Tag of node sockets on the hub. */
export const NODE_TAG = "node";

/** What a node socket carries: nothing until the node registers. */
export interface NodeAttachment {
  connected_at: number;
  /** The node identity whose token opened the socket: only it may replace the socket by node id. */
  identity_id: string;
  /** When the hub last found that identity unrevoked in D1 (0 = not since the socket opened). */
  checked_at: number;
  registered: Omit<NodeRegister, "type"> | null;
  /** When the hub last handed this node a stream (0 = never): among equals, the longest idle goes next. */
  assigned_at: number;
  /** Stream assignments sent on this socket. */
  assigned_total: number;
  /** Ids of stream assignments the node has not acknowledged in a load report yet. */
  unacked: string[];
  /** The streams the node last reported running. */
  running: string[];
  /** Streams their objects said are over, which the node has not reported gone yet. */
  ended: string[];
}

export interface EngineNode {
  ws: WebSocket;
  attachment: NodeAttachment;
  registered: Omit<NodeRegister, "type">;
}

/** A fresh node socket's attachment. */
export function newNodeAttachment(now: number, identityId: string): NodeAttachment {
  return {
    connected_at: now,
    identity_id: identityId,
    checked_at: 0,
    registered: null,
    assigned_at: 0,
    assigned_total: 0,
    unacked: [],
    running: [],
    ended: [],
  };
}

/** The streams an engine holds: reported running or assigned since, less those known to be over. */
export function usedStreams(attachment: Pick<NodeAttachment, "unacked" | "running" | "ended">): Set<string> {
  const used = new Set([...attachment.running, ...attachment.unacked]);
  for (const id of attachment.ended) used.delete(id);
  return used;
}

/**
 * The attachment after a load report: assignments the report covers are no longer pending, and
 * ended streams the node no longer runs are forgotten.
 */
export function applyLoad(attachment: NodeAttachment, load: Omit<NodeLoad, "type">): NodeAttachment {
  const acknowledged = Math.max(0, load.assigned - (attachment.assigned_total - attachment.unacked.length));
  const unacked = attachment.unacked.slice(acknowledged);
  const held = new Set([...load.streams, ...unacked]);
  return {
    ...attachment,
    unacked,
    running: load.streams,
    ended: attachment.ended.filter((id) => held.has(id)),
  };
}

/** The attachment after a stream was assigned. */
export function withAssigned(attachment: NodeAttachment, streamId: string, now: number): NodeAttachment {
  return {
    ...attachment,
    assigned_at: now,
    assigned_total: attachment.assigned_total + 1,
    unacked: [...attachment.unacked, streamId],
  };
}

/** The attachment after the object that hosted `streamId` said it is over (unchanged if not ours). */
export function withEnded(attachment: NodeAttachment, streamId: string): NodeAttachment | null {
  const ours = attachment.running.includes(streamId) || attachment.unacked.includes(streamId);
  if (!ours || attachment.ended.includes(streamId)) return null;
  return { ...attachment, ended: [...attachment.ended, streamId] };
}

/** Registered nodes with a loaded engine (capacity > 0) that pinged recently. */
export function liveEngines(ctx: DurableObjectState, now: number): EngineNode[] {
  const engines: EngineNode[] = [];
  for (const ws of ctx.getWebSockets(NODE_TAG)) {
    const attachment = attachmentOf<NodeAttachment>(ws);
    const registered = attachment?.registered;
    if (!attachment || !registered || registered.capacity < 1 || ws.readyState !== WebSocket.OPEN) continue;
    const lastPing = ctx.getWebSocketAutoResponseTimestamp(ws)?.getTime() ?? 0;
    if (now - Math.max(lastPing, attachment.connected_at) > LIVE_NODE_STALE_MS) continue;
    engines.push({ ws, attachment, registered });
  }
  return engines;
}

/**
 * Stream slots an engine has left: its capacity less the streams it holds (reported running, or
 * assigned since its last report, and not known to be over), and no more than its identity has left.
 *
 * @example
 * // capacity 2, one stream reported, one assigned since: nothing left
 * freeSlots({ registered: { capacity: 2 }, attachment: { running: ["a"], unacked: ["b"], ended: [] } }); // 0
 */
export function freeSlots(
  engine: Pick<EngineNode, "registered"> & {
    attachment: Pick<NodeAttachment, "unacked" | "running" | "ended">;
  },
  identityLeft = Number.POSITIVE_INFINITY,
): number {
  return Math.min(engine.registered.capacity - usedStreams(engine.attachment).size, identityLeft);
}

/**
 * Slots each node identity has left: `maxPerIdentity` less the streams all its engines hold. The
 * capacity a node registers is its own claim; this caps what one token can take, however many sockets
 * it opens and whatever capacity they claim.
 */
export function identitySlotsLeft(
  engines: readonly EngineNode[],
  maxPerIdentity: number,
): Map<string, number> {
  const left = new Map<string, number>();
  for (const engine of engines) {
    const id = engine.attachment.identity_id;
    left.set(id, (left.get(id) ?? maxPerIdentity) - usedStreams(engine.attachment).size);
  }
  return left;
}

/**
 * The engine to take the next stream: the one with the most free slots (within its identity's cap),
 * and among those the one idle longest; null when none has a slot. With `needsSlot: false`
 * (translate-only links) any engine will do.
 */
export function pickEngine(
  engines: readonly EngineNode[],
  maxPerIdentity: number,
  needsSlot = true,
): EngineNode | null {
  const identityLeft = identitySlotsLeft(engines, maxPerIdentity);
  const free = (engine: EngineNode) => freeSlots(engine, identityLeft.get(engine.attachment.identity_id));
  let best: EngineNode | null = null;
  for (const engine of engines) {
    if (needsSlot && free(engine) < 1) continue;
    if (!best) {
      best = engine;
      continue;
    }
    const [engineFree, bestFree] = [free(engine), free(best)];
    if (
      engineFree > bestFree ||
      (engineFree === bestFree && engine.attachment.assigned_at < best.attachment.assigned_at)
    ) {
      best = engine;
    }
  }
  return best;
}

/**
 * Other sockets of the same node id and node identity: a reconnecting node replaces its older, maybe
 * half-open, socket. The node id is the node's own claim, so a node on another token that registers
 * the same id does not push this one out.
 */
export function olderSockets(
  ctx: DurableObjectState,
  current: WebSocket,
  nodeId: string,
  identityId: string,
): WebSocket[] {
  return ctx.getWebSockets(NODE_TAG).filter((ws) => {
    const attachment = attachmentOf<NodeAttachment>(ws);
    return (
      ws !== current && attachment?.registered?.node_id === nodeId && attachment.identity_id === identityId
    );
  });
}
