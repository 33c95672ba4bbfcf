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
  registered: Omit<NodeRegister, "type"> | null;
  /** When the hub last handed this node a stream (0 = never): among equals, the longest idle goes next. */
  assigned_at: number;
  /** Stream assignments sent on this socket. */
  assigned_total: number;
  /** The node's last load report (none yet: nothing running, nothing seen). */
  load: Omit<NodeLoad, "type"> | null;
}

export interface EngineNode {
  ws: WebSocket;
  attachment: NodeAttachment;
  registered: Omit<NodeRegister, "type">;
}

/** A fresh node socket's attachment. */
export function newNodeAttachment(now: number): NodeAttachment {
  return { connected_at: now, registered: null, assigned_at: 0, assigned_total: 0, load: null };
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
 * Stream slots an engine has left: its capacity less the streams it reported running, less the
 * assignments it has not acknowledged yet (sent after its last report).
 *
 * @example
 * // capacity 2, one stream reported, one assignment since: nothing left
 * freeSlots({ registered: { capacity: 2 }, attachment: { assigned_total: 3, load: { active: 1, assigned: 2 } } }); // 0
 */
export function freeSlots(
  engine: Pick<EngineNode, "registered"> & { attachment: Pick<NodeAttachment, "assigned_total" | "load"> },
): number {
  const { assigned_total, load } = engine.attachment;
  const pending = Math.max(0, assigned_total - (load?.assigned ?? 0));
  return engine.registered.capacity - (load?.active ?? 0) - pending;
}

/**
 * The engine to take the next stream: the one with the most free slots, and among those the one
 * idle longest; null when none has a slot. With `needsSlot: false` (translate-only links) any
 * engine will do.
 */
export function pickEngine(engines: readonly EngineNode[], needsSlot = true): EngineNode | null {
  let best: EngineNode | null = null;
  for (const engine of engines) {
    if (needsSlot && freeSlots(engine) < 1) continue;
    if (!best) {
      best = engine;
      continue;
    }
    const [free, bestFree] = [freeSlots(engine), freeSlots(best)];
    if (
      free > bestFree ||
      (free === bestFree && engine.attachment.assigned_at < best.attachment.assigned_at)
    ) {
      best = engine;
    }
  }
  return best;
}

/** Other sockets of the same node id: a reconnecting node replaces its older, maybe half-open, socket. */
export function olderSockets(ctx: DurableObjectState, current: WebSocket, nodeId: string): WebSocket[] {
  return ctx
    .getWebSockets(NODE_TAG)
    .filter((ws) => ws !== current && attachmentOf<NodeAttachment>(ws)?.registered?.node_id === nodeId);
}
