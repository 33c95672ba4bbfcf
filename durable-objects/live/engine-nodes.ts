/**
 * The nodes connected to the LiveHub, read straight from its hibernatable sockets: each socket's
 * attachment says what the node registered, and the runtime's auto-response timestamp says when it
 * last pinged. Nothing is kept in memory, so the hub can hibernate between events.
 */
import { LIVE_NODE_STALE_MS, type NodeRegister } from "../../protocol/live.ts";
import { attachmentOf } from "./sockets.ts";

/** Tag of node sockets on the hub. */
export const NODE_TAG = "node";

/** What a node socket carries: nothing until the node registers. */
export interface NodeAttachment {
  connected_at: number;
  registered: Omit<NodeRegister, "type"> | null;
  /** When the hub last handed this node a session (0 = never): the next goes to the longest idle. */
  assigned_at: number;
}

export interface EngineNode {
  ws: WebSocket;
  attachment: NodeAttachment;
  registered: Omit<NodeRegister, "type">;
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

/** The engine that waited longest since its last assignment, or null when none is connected. */
export function pickEngine(engines: readonly EngineNode[]): EngineNode | null {
  let best: EngineNode | null = null;
  for (const engine of engines) {
    if (!best || engine.attachment.assigned_at < best.attachment.assigned_at) best = engine;
  }
  return best;
}

/** Other sockets of the same node id: a reconnecting node replaces its older, maybe half-open, socket. */
export function olderSockets(ctx: DurableObjectState, current: WebSocket, nodeId: string): WebSocket[] {
  return ctx
    .getWebSockets(NODE_TAG)
    .filter((ws) => ws !== current && attachmentOf<NodeAttachment>(ws)?.registered?.node_id === nodeId);
}
