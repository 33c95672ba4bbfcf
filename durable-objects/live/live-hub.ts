import { DurableObject } from "cloudflare:workers";
import { workerConfig } from "../../platform/config.ts";
import { unrevokedNodes } from "../../platform/node-identity.ts";
import {
  type AssignMessage,
  LIVE_PING,
  LIVE_PONG,
  NodeToHub,
  parseLiveMessage,
} from "../../protocol/live.ts";
import {
  applyLoad,
  type EngineNode,
  liveEngines,
  NODE_TAG,
  type NodeAttachment,
  newNodeAttachment,
  olderSockets,
  pickEngine,
  usedStreams,
  withAssigned,
  withEnded,
} from "./engine-nodes.ts";
import { KeyStreams } from "./key-streams.ts";
import { dropEngines, dueIdentities, recheckEveryMs } from "./node-checks.ts";
import { SessionGate } from "./session-gate.ts";
import { attachmentOf, closeSocket, sendJson } from "./sockets.ts";
import { type DialledStream, StreamDials, type StreamHost } from "./stream-dials.ts";

/** Why a stream could not get an engine. */
export type ClaimRefusal = {
  ok: false;
  reason: "busy" | "no_engine" | "full" | "key_limit";
  message: string;
};
export type ClaimResult = { ok: true; session_id: string; node_id: string } | ClaimRefusal;
export type AssignResult = { ok: true; node_id: string } | ClaimRefusal;

/**
 * The internal upgrade request for a node's hub socket, naming the node identity that opened it.
 *
 * @example await liveHub(env).fetch(hubRequest(request, node.id));
 */
export function hubRequest(original: Request, identityId: string): Request {
  const url = new URL("https://live-hub/node");
  url.searchParams.set("identity_id", identityId);
  return new Request(url, { headers: original.headers });
}

/** What /health shows about live streaming. */
export interface LiveStatus {
  /** A live-mic session holds the gate. */
  busy: boolean;
  /** Connected nodes with a loaded streaming engine: the ones `claim` picks from. */
  engines: number;
  /** The models those engines registered with, one entry per engine. */
  models: string[];
}

/** What a stream asks of the hub: which object the engine must reach, and what for. */
export interface AssignAsk {
  session_id: string;
  /** The object the stream lives in; the node is sent a path with the stream's secret, never this. */
  host: StreamHost;
  /** `stream` takes a capacity slot; `translate` (a room's history) does not. */
  mode: "stream" | "translate";
  /** The API key the stream is for (single-device sessions), counted against its stream limit. */
  key_id?: string;
}

const NO_ENGINE: ClaimRefusal = {
  ok: false,
  reason: "no_engine",
  message: "no streaming engine is connected; try again later",
};
/** The close a revoked node's hub socket gets (policy violation). */
const REVOKED = { code: 1008, reason: "node identity revoked" } as const;
/** A booked dial no engine holds any more is forgotten after this long. */
const DIAL_KEEP_MS = 60_000;

const FULL: ClaimRefusal = {
  ok: false,
  reason: "full",
  message: "every streaming engine is busy; try again later",
};

/**
 * The live control plane, one object per deployment. Inference nodes dial out to it and keep one
 * hibernatable WebSocket each (register, ping, report their running streams); the hub counts each
 * engine's free capacity and hands streams to engines with room, which then dial the path they are
 * given, which only that node's identity can use (stream-dials.ts). Each identity's streams are capped
 * (LIVE_NODE_MAX_CAPACITY) and the identity re-checked in D1 (node-checks.ts): a revoked node's hub
 * socket and streams are closed. The live microphone (/ws) also holds the one-session-at-a-time gate
 * kept here. Audio never passes through this object.
 */
export class LiveHub extends DurableObject<Env> {
  private readonly gate: SessionGate;
  readonly #keyStreams: KeyStreams;
  readonly #dials: StreamDials;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Node heartbeats are answered by the runtime without waking the object, so it can hibernate.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(LIVE_PING, LIVE_PONG));
    this.gate = new SessionGate(ctx.storage);
    this.#keyStreams = new KeyStreams(ctx.storage);
    this.#dials = new StreamDials(ctx.storage);
  }

  /** A node's hub socket (the Worker checked the node token and the Upgrade header). */
  override async fetch(request: Request): Promise<Response> {
    const identityId = new URL(request.url).searchParams.get("identity_id") ?? "";
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1], [NODE_TAG]);
    pair[1].serializeAttachment(newNodeAttachment(Date.now(), identityId));
    if ((await this.ctx.storage.getAlarm()) === null) await this.#armRecheck(Date.now());
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  /**
   * A live-mic (/ws) session: takes the gate and assigns the stream to an engine with a free slot,
   * or says why not.
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
    const engine = this.#engineFor("stream", now);
    if (!("ws" in engine)) return engine;
    const overLimit = await this.#keyLimit(ask.key_id, now);
    if (overLimit) return overLimit;
    const sessionId = `live_${crypto.randomUUID()}`;
    const nodeId = engine.registered.node_id;
    await this.gate.claim({ session_id: sessionId, node_id: nodeId, key_id: ask.key_id }, now);
    if (
      !(await this.#send(engine, { session_id: sessionId, host: { object: "session" }, mode: "stream" }, now))
    ) {
      await this.gate.release(sessionId);
      return { ok: false, reason: "no_engine", message: "the streaming engine went away; try again" };
    }
    await this.#keyStreams.add(sessionId, ask.key_id, now);
    return { ok: true, session_id: sessionId, node_id: nodeId };
  }

  /**
   * A stream outside the live-mic gate (a single-device session, a room speaker) or a room's
   * translate-only link: hands it to an engine, which dials `path`.
   *
   * @example
   * const got = await hub.assign({ session_id: id, host: { object: "room", conversation_id }, mode: "stream" });
   * if (!got.ok) tell(speaker, got.message);
   */
  async assign(ask: AssignAsk): Promise<AssignResult> {
    const now = Date.now();
    const engine = this.#engineFor(ask.mode, now);
    if (!("ws" in engine)) return engine;
    const overLimit = ask.key_id === undefined ? null : await this.#keyLimit(ask.key_id, now);
    if (overLimit) return overLimit;
    const { key_id, ...assignment } = ask;
    if (!(await this.#send(engine, assignment, now))) {
      return { ok: false, reason: "no_engine", message: "the streaming engine went away; try again" };
    }
    if (key_id !== undefined) await this.#keyStreams.add(ask.session_id, key_id, now);
    return { ok: true, node_id: engine.registered.node_id };
  }

  /** Keeps a running live-mic session's claim alive; false tells the session it lost the gate. */
  async renew(sessionId: string): Promise<boolean> {
    return this.gate.renew(sessionId, Date.now());
  }

  /**
   * A stream is over (its session finished, or its room let it go): its engine's slot is free at once,
   * without waiting for the node's next report. Opens the live-mic gate when `sessionId` holds it.
   * Idempotent.
   */
  async release(sessionId: string): Promise<void> {
    for (const ws of this.ctx.getWebSockets(NODE_TAG)) {
      const attachment = ws.deserializeAttachment() as NodeAttachment | null;
      const ended = attachment ? withEnded(attachment, sessionId) : null;
      if (ended) ws.serializeAttachment(ended satisfies NodeAttachment);
    }
    await this.#keyStreams.remove(sessionId);
    await this.#dials.remove(sessionId);
    await this.gate.release(sessionId);
  }

  /**
   * Where a node's dial-in for a stream leads: only the identity the stream was assigned to, with the
   * stream's secret, once; null for anyone else.
   */
  async dial(streamId: string, secret: string, identityId: string): Promise<DialledStream | null> {
    return this.#dials.take(streamId, secret, identityId);
  }

  async status(): Promise<LiveStatus> {
    const now = Date.now();
    const engines = liveEngines(this.ctx, now);
    return {
      busy: (await this.gate.holder(now)) !== null,
      engines: engines.length,
      models: engines.map((engine) => engine.registered.model),
    };
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const parsed = typeof message === "string" ? parseLiveMessage(NodeToHub, message) : null;
    if (!parsed?.ok) {
      // the internal protocol has no recoverable mistakes: a confused node reconnects and registers again
      closeSocket(ws, 1008, parsed ? parsed.error : "the hub socket takes JSON text messages");
      return;
    }
    const said = parsed.value;
    const now = Date.now();
    if (said.type === "load") {
      const attachment = ws.deserializeAttachment() as NodeAttachment;
      ws.serializeAttachment(applyLoad(attachment, said) satisfies NodeAttachment);
      return this.#recheck(now);
    }
    await this.#recheck(now);
    if (ws.readyState !== WebSocket.OPEN) return; // its identity was revoked
    const attachment = ws.deserializeAttachment() as NodeAttachment;
    const { type: _type, ...registered } = said;
    for (const older of olderSockets(this.ctx, ws, registered.node_id, attachment.identity_id)) {
      closeSocket(older, 1000, "replaced by a newer connection of the same node");
    }
    ws.serializeAttachment({ ...attachment, registered } satisfies NodeAttachment);
  }

  /** The identities' re-check and bookings nobody holds forgotten; again in a period while nodes are connected. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    await this.#recheck(now);
    const held = new Set(
      this.ctx.getWebSockets(NODE_TAG).flatMap((ws) => {
        const attachment = attachmentOf<NodeAttachment>(ws);
        return attachment ? [...usedStreams(attachment)] : [];
      }),
    );
    await this.#dials.sweep((id) => held.has(id), now, DIAL_KEEP_MS);
    if (this.ctx.getWebSockets(NODE_TAG).length > 0) await this.#armRecheck(now);
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    // the node is gone from getWebSockets() once this returns; a stream it served notices on its own socket
    closeSocket(ws, code, reason);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    closeSocket(ws, 1011, "socket error");
  }

  /** The engine for a new link, or why there is none. */
  #engineFor(mode: AssignAsk["mode"], now: number): EngineNode | ClaimRefusal {
    const engines = liveEngines(this.ctx, now);
    if (engines.length === 0) return NO_ENGINE;
    return pickEngine(engines, workerConfig(this.env).liveNodeMaxCapacity, mode === "stream") ?? FULL;
  }

  /** A refusal when `keyId` already holds LIVE_MAX_STREAMS_PER_KEY streams, else null. */
  async #keyLimit(keyId: string, now: number): Promise<ClaimRefusal | null> {
    const max = workerConfig(this.env).liveMaxStreamsPerKey;
    const held = new Set(liveEngines(this.ctx, now).flatMap((engine) => [...usedStreams(engine.attachment)]));
    if ((await this.#keyStreams.held(keyId, (id) => held.has(id))) < max) return null;
    return {
      ok: false,
      reason: "key_limit",
      message: `this API key already has ${max} live streams open (the most it may have); close one first`,
    };
  }

  /**
   * Books the stream's dial for the engine's identity, sends the assignment and books it on the
   * engine's socket; false when the socket is gone.
   */
  async #send(engine: EngineNode, ask: Omit<AssignAsk, "key_id">, now: number): Promise<boolean> {
    const { session_id, host, mode } = ask;
    const path = await this.#dials.book(session_id, host, engine.attachment.identity_id, now);
    const assign: AssignMessage = { type: "assign", session_id, path, mode };
    if (!sendJson(engine.ws, assign)) {
      await this.#dials.remove(session_id);
      return false;
    }
    if (ask.mode === "stream") {
      engine.ws.serializeAttachment(
        withAssigned(engine.attachment, ask.session_id, now) satisfies NodeAttachment,
      );
    }
    return true;
  }

  /**
   * Re-checks in D1 the identities whose check is due (node-checks.ts): a revoked identity's hub sockets
   * are closed and the objects its streams live in told to drop its engines.
   */
  async #recheck(now: number): Promise<void> {
    const every = recheckEveryMs(workerConfig(this.env).authCacheTtlMs);
    const sockets = this.ctx.getWebSockets(NODE_TAG);
    const due = dueIdentities(sockets.map(attachmentOf<NodeAttachment>), now, every);
    if (due.length === 0) return;
    const valid = await unrevokedNodes(this.env, due).catch((error: unknown) => {
      // D1 unreachable: nothing is decided now; the checks stay due, so the next event or alarm retries
      console.error(JSON.stringify({ live_hub: "node identity check failed", error: String(error) }));
      return null;
    });
    if (!valid) return;
    const revoked = new Set(due.filter((id) => !valid.has(id)));
    for (const ws of this.ctx.getWebSockets(NODE_TAG)) {
      const attachment = attachmentOf<NodeAttachment>(ws);
      if (!attachment || !due.includes(attachment.identity_id)) continue;
      if (revoked.has(attachment.identity_id)) closeSocket(ws, REVOKED.code, REVOKED.reason);
      else ws.serializeAttachment({ ...attachment, checked_at: now } satisfies NodeAttachment);
    }
    if (revoked.size > 0) await dropEngines(this.env, await this.#dials.takeAllOf(revoked));
  }

  async #armRecheck(now: number): Promise<void> {
    await this.ctx.storage.setAlarm(now + recheckEveryMs(workerConfig(this.env).authCacheTtlMs));
  }
}
