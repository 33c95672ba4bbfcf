import { DurableObject } from "cloudflare:workers";
import {
  type AssignMessage,
  LIVE_PING,
  LIVE_PONG,
  NodeToHub,
  parseLiveMessage,
} from "../../protocol/live.ts";
import { liveEngines, NODE_TAG, type NodeAttachment, olderSockets, pickEngine } from "./engine-nodes.ts";
import { SessionGate } from "./session-gate.ts";
import { closeSocket, sendJson } from "./sockets.ts";

/** Why /ws turned a client away. */
export type ClaimRefusal = { ok: false; reason: "busy" | "no_engine"; message: string };
export type ClaimResult = { ok: true; session_id: string; node_id: string } | ClaimRefusal;

/** What /health shows about live streaming. */
export interface LiveStatus {
  /** A live session holds the gate. */
  busy: boolean;
  /** Connected nodes with a loaded streaming engine. */
  engines: number;
}

/**
 * The live control plane, one object per deployment. Inference nodes dial out to it and keep one
 * hibernatable WebSocket each (register, then ping); the hub holds the one-session-at-a-time gate and
 * hands a claimed session to the engine that waited longest, which then dials the session's own
 * LiveSession object. Audio never passes through here.
 */
export class LiveHub extends DurableObject<Env> {
  private readonly gate: SessionGate;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Node heartbeats are answered by the runtime without waking the object, so it can hibernate.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(LIVE_PING, LIVE_PONG));
    this.gate = new SessionGate(ctx.storage);
  }

  /** A node's hub socket (the Worker checked NODE_TOKEN and the Upgrade header). */
  override async fetch(_request: Request): Promise<Response> {
    const pair = new WebSocketPair();
    const attachment: NodeAttachment = { connected_at: Date.now(), registered: null, assigned_at: 0 };
    this.ctx.acceptWebSocket(pair[1], [NODE_TAG]);
    pair[1].serializeAttachment(attachment);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  /**
   * Takes the gate for a new session and assigns it to an engine, or says why not.
   *
   * @example
   * const claim = await hub.claim({ key_id: "key_1" });
   * if (claim.ok) await liveSession(env, claim.session_id).fetch(upgrade);
   */
  async claim(ask: { key_id: string }): Promise<ClaimResult> {
    const now = Date.now();
    if (await this.gate.holder(now)) {
      return { ok: false, reason: "busy", message: "another live session is in progress; try again later" };
    }
    const engine = pickEngine(liveEngines(this.ctx, now));
    if (!engine) {
      return { ok: false, reason: "no_engine", message: "no streaming engine is connected; try again later" };
    }
    const sessionId = `live_${crypto.randomUUID()}`;
    const nodeId = engine.registered.node_id;
    await this.gate.claim({ session_id: sessionId, node_id: nodeId, key_id: ask.key_id }, now);
    const assign: AssignMessage = { type: "assign", session_id: sessionId };
    if (!sendJson(engine.ws, assign)) {
      await this.gate.release(sessionId);
      return { ok: false, reason: "no_engine", message: "the streaming engine went away; try again" };
    }
    engine.ws.serializeAttachment({ ...engine.attachment, assigned_at: now } satisfies NodeAttachment);
    return { ok: true, session_id: sessionId, node_id: nodeId };
  }

  /** Keeps a running session's claim alive; false tells the session it lost the gate. */
  async renew(sessionId: string): Promise<boolean> {
    return this.gate.renew(sessionId, Date.now());
  }

  /** Opens the gate when `sessionId` holds it. Idempotent. */
  async release(sessionId: string): Promise<void> {
    await this.gate.release(sessionId);
  }

  async status(): Promise<LiveStatus> {
    const now = Date.now();
    return { busy: (await this.gate.holder(now)) !== null, engines: liveEngines(this.ctx, now).length };
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const parsed = typeof message === "string" ? parseLiveMessage(NodeToHub, message) : null;
    if (!parsed?.ok) {
      // the internal protocol has no recoverable mistakes: a confused node reconnects and registers again
      closeSocket(ws, 1008, parsed ? parsed.error : "the hub socket takes JSON text messages");
      return;
    }
    const { type: _type, ...registered } = parsed.value;
    for (const older of olderSockets(this.ctx, ws, registered.node_id)) {
      closeSocket(older, 1000, "replaced by a newer connection of the same node");
    }
    const attachment = ws.deserializeAttachment() as NodeAttachment;
    ws.serializeAttachment({ ...attachment, registered } satisfies NodeAttachment);
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    // the node is gone from getWebSockets() once this returns; a session it served notices on its own socket
    closeSocket(ws, code, reason);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    closeSocket(ws, 1011, "socket error");
  }
}
