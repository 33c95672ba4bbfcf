/**
 * The nodes connected to a LiveHub shard, as their hibernatable sockets keep them: each socket's
 * attachment says what the node registered and how loaded it is (node-index.ts keeps the shard's
 * in-memory view of them), and the runtime's auto-response timestamp says when it last pinged.
 */
import { LIVE_NODE_STALE_MS, type NodeLoad, type NodeRegister } from "../../protocol/live.ts";

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

/** An engine that registered and pinged recently enough to be handed streams. */
export function engineUsable(
  ctx: DurableObjectState,
  ws: WebSocket,
  attachment: NodeAttachment,
  now: number,
): boolean {
  if (ws.readyState !== WebSocket.OPEN || (attachment.registered?.capacity ?? 0) < 1) return false;
  const lastPing = ctx.getWebSocketAutoResponseTimestamp(ws)?.getTime() ?? 0;
  return now - Math.max(lastPing, attachment.connected_at) <= LIVE_NODE_STALE_MS;
}
