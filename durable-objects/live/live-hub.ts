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
  engineUsable,
  NODE_TAG,
  type NodeAttachment,
  newNodeAttachment,
  withAssigned,
  withEnded,
} from "./engine-nodes.ts";
import type { AssignAsk } from "./live-streams.ts";
import { dropEngines, dueIdentities, recheckEveryMs } from "./node-checks.ts";
import { NodeIndex, type ShardLoad } from "./node-index.ts";
import { type ClaimRefusal, FULL, NO_ENGINE } from "./refusals.ts";
import { closeSocket, sendJson } from "./sockets.ts";
import { type DialledStream, StreamDials } from "./stream-dials.ts";

/** What a shard is asked to assign: the stream, without the key (live-streams.ts counts that). */
export type ShardAsk = Pick<AssignAsk, "session_id" | "host" | "mode">;
export type ShardAssign = { ok: true; node_id: string } | ClaimRefusal;

/** What /health shows of one shard. */
export interface ShardStatus {
  engines: number;
  models: string[];
}

/**
 * The internal upgrade request for a node's hub socket, naming the node identity that opened it.
 *
 * @example await liveHub(env, shard).fetch(hubRequest(request, node.id));
 */
export function hubRequest(original: Request, identityId: string): Request {
  const url = new URL("https://live-hub/node");
  url.searchParams.set("identity_id", identityId);
  return new Request(url, { headers: original.headers });
}

/** The close a revoked node's hub socket gets (policy violation). */
const REVOKED = { code: 1008, reason: "node identity revoked" } as const;
/** A booked dial no engine holds any more is forgotten after this long. */
const DIAL_KEEP_MS = 60_000;
const GONE: ClaimRefusal = {
  ok: false,
  reason: "no_engine",
  message: "the streaming engine went away; try again",
};

/**
 * One shard of the live control plane (LIVE_HUB_SHARDS of them; hub-shards.ts says whose sockets each
 * holds). Inference nodes dial out to their identity's shard and keep one hibernatable WebSocket each
 * (register, ping, report their running streams); the shard counts each engine's free capacity in an
 * in-memory index (node-index.ts, rebuilt from the sockets' attachments when it wakes) and hands
 * streams to the engine with most room, which then dials the path it is given, which only that node's
 * identity can use (stream-dials.ts). Each identity's streams are capped (LIVE_NODE_MAX_CAPACITY) and the
 * identity re-checked in D1 (node-checks.ts): a revoked node's hub socket and streams are closed. Audio
 * never passes through this object; API keys' stream counts and the /ws gate live in their own objects.
 */
export class LiveHub extends DurableObject<Env> {
  readonly #dials: StreamDials;
  #nodes: NodeIndex | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Node heartbeats are answered by the runtime without waking the object, so it can hibernate.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(LIVE_PING, LIVE_PONG));
    this.#dials = new StreamDials(ctx.storage);
  }

  /** A node's hub socket (the Worker checked the node token and the Upgrade header). */
  override async fetch(request: Request): Promise<Response> {
    const identityId = new URL(request.url).searchParams.get("identity_id") ?? "";
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1], [NODE_TAG]);
    this.#save(pair[1], newNodeAttachment(Date.now(), identityId));
    if ((await this.ctx.storage.getAlarm()) === null) await this.#armRecheck(Date.now());
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  /** How much this shard could take: the Worker asks two shards and gives the stream to the freer. */
  async load(): Promise<ShardLoad> {
    return this.#index().load();
  }

  /**
   * Hands a stream (or a room's translate-only link) to the engine with most room, which dials the
   * stream's path; or says why not.
   */
  async assign(ask: ShardAsk): Promise<ShardAssign> {
    const now = Date.now();
    const index = this.#index();
    if (index.load().engines === 0) return NO_ENGINE;
    const ws = index.pick(ask.mode === "stream", (socket, attachment) =>
      engineUsable(this.ctx, socket, attachment, now),
    );
    const attachment = ws ? index.get(ws) : null;
    if (!ws || !attachment?.registered) return FULL;
    const path = await this.#dials.book(ask.session_id, ask.host, attachment.identity_id, now);
    const assign: AssignMessage = { type: "assign", session_id: ask.session_id, path, mode: ask.mode };
    if (!sendJson(ws, assign)) {
      await this.#dials.remove(ask.session_id);
      return GONE;
    }
    if (ask.mode === "stream") this.#save(ws, withAssigned(attachment, ask.session_id, now));
    return { ok: true, node_id: attachment.registered.node_id };
  }

  /**
   * A stream is over: its engine's slot is free at once, without waiting for the node's next report.
   * Idempotent.
   */
  async release(sessionId: string): Promise<void> {
    const index = this.#index();
    const ws = index.holderOf(sessionId);
    const attachment = ws ? index.get(ws) : null;
    const ended = attachment ? withEnded(attachment, sessionId) : null;
    if (ws && ended) this.#save(ws, ended);
    await this.#dials.remove(sessionId);
  }

  /** Which of these streams an engine of this shard still holds (an API key's count asks, at its limit). */
  async holds(sessionIds: readonly string[]): Promise<string[]> {
    const index = this.#index();
    return sessionIds.filter((id) => index.holderOf(id) !== null);
  }

  /**
   * Where a node's dial-in for a stream leads: only the identity the stream was assigned to, with the
   * stream's secret, once; null for anyone else.
   */
  async dial(streamId: string, secret: string, identityId: string): Promise<DialledStream | null> {
    return this.#dials.take(streamId, secret, identityId);
  }

  async status(): Promise<ShardStatus> {
    const now = Date.now();
    const models: string[] = [];
    for (const [ws, attachment] of this.#index().sockets()) {
      if (attachment.registered && engineUsable(this.ctx, ws, attachment, now)) {
        models.push(attachment.registered.model);
      }
    }
    return { engines: models.length, models };
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const parsed = typeof message === "string" ? parseLiveMessage(NodeToHub, message) : null;
    if (!parsed?.ok) {
      // the internal protocol has no recoverable mistakes: a confused node reconnects and registers again
      this.#close(ws, 1008, parsed ? parsed.error : "the hub socket takes JSON text messages");
      return;
    }
    const said = parsed.value;
    const now = Date.now();
    const attachment = this.#index().get(ws);
    if (!attachment) return;
    if (said.type === "load") {
      this.#save(ws, applyLoad(attachment, said));
      return this.#recheck(now);
    }
    await this.#recheck(now);
    if (ws.readyState !== WebSocket.OPEN) return; // its identity was revoked
    const { type: _type, ...registered } = said;
    for (const [older, other] of this.#index().sockets()) {
      // a reconnecting node replaces its older, maybe half-open, socket; the node id is its own claim,
      // so a node on another identity that registers the same id does not push this one out
      if (
        older !== ws &&
        other.registered?.node_id === registered.node_id &&
        other.identity_id === attachment.identity_id
      ) {
        this.#close(older, 1000, "replaced by a newer connection of the same node");
      }
    }
    this.#save(ws, { ...(this.#index().get(ws) ?? attachment), registered });
  }

  /** The identities' re-check and bookings nobody holds forgotten; again in a period while nodes are connected. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    await this.#recheck(now);
    const index = this.#index();
    await this.#dials.sweep((id) => index.holderOf(id) !== null, now, DIAL_KEEP_MS);
    if (this.ctx.getWebSockets(NODE_TAG).length > 0) await this.#armRecheck(now);
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    // the node is gone from getWebSockets() once this returns; a stream it served notices on its own socket
    this.#close(ws, code, reason);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.#close(ws, 1011, "socket error");
  }

  /** The shard's node index, rebuilt from the sockets' attachments on the first call after a wake. */
  #index(): NodeIndex {
    this.#nodes ??= NodeIndex.of(
      this.ctx.getWebSockets(NODE_TAG),
      workerConfig(this.env).liveNodeMaxCapacity,
    );
    return this.#nodes;
  }

  #save(ws: WebSocket, attachment: NodeAttachment): void {
    ws.serializeAttachment(attachment);
    this.#index().set(ws, attachment);
  }

  #close(ws: WebSocket, code: number, reason: string): void {
    this.#index().delete(ws);
    closeSocket(ws, code, reason);
  }

  /**
   * Re-checks in D1 the identities whose check is due (node-checks.ts): a revoked identity's hub sockets
   * are closed and the objects its streams live in told to drop its engines.
   */
  async #recheck(now: number): Promise<void> {
    const every = recheckEveryMs(workerConfig(this.env).authCacheTtlMs);
    const index = this.#index();
    const due = dueIdentities(
      [...index.sockets()].map(([, attachment]) => attachment),
      now,
      every,
    );
    if (due.length === 0) return;
    const valid = await unrevokedNodes(this.env, due).catch((error: unknown) => {
      // D1 unreachable: nothing is decided now; the checks stay due, so the next event or alarm retries
      console.error(JSON.stringify({ live_hub: "node identity check failed", error: String(error) }));
      return null;
    });
    if (!valid) return;
    const revoked = new Set(due.filter((id) => !valid.has(id)));
    for (const [ws, attachment] of [...index.sockets()]) {
      if (!due.includes(attachment.identity_id)) continue;
      if (revoked.has(attachment.identity_id)) this.#close(ws, REVOKED.code, REVOKED.reason);
      else this.#save(ws, { ...attachment, checked_at: now });
    }
    if (revoked.size > 0) await dropEngines(this.env, await this.#dials.takeAllOf(revoked));
  }

  async #armRecheck(now: number): Promise<void> {
    await this.ctx.storage.setAlarm(now + recheckEveryMs(workerConfig(this.env).authCacheTtlMs));
  }
}
