import { DurableObject } from "cloudflare:workers";
import { workerConfig } from "../../platform/config.ts";
import { LiveClose, NodeToSession, parseLiveMessage } from "../../protocol/live.ts";
import type { RealtimeWire } from "../../protocol/realtime.ts";
import type { ClientDialect, DialectStep } from "./dialect.ts";
import { releaseStream, renewMic } from "./live-streams.ts";
import { PendingAudio } from "./pending-audio.ts";
import {
  type DialectState,
  dialectOf,
  initialState,
  type SessionMode,
  sessionMode,
} from "./session-dialects.ts";

import { checkTimeouts, type SessionOutcome } from "./session-timeouts.ts";
import { attachmentOf, closeSocket, sendJson, sendRaw } from "./sockets.ts";

const CLIENT_TAG = "client";
const NODE_TAG = "node";
const META_KEY = "meta";
/**
 * How long a finished session keeps its "finished" mark (so a node dialling in late is refused) before
 * its storage is deleted; one object per stream must not leave a key behind for ever.
 */
const FINISHED_GRACE_MS = 60_000;

/** Who dials into a session: the client (through /ws, /api/v1/ws/single or /v1/realtime) or the node the hub assigned. */
export type SessionJoin =
  | {
      role: "client";
      mode: SessionMode;
      session_id: string;
      key_id: string;
      language: string;
      /** Realtime: the wire generation the client opened with, and the model it named. */
      wire?: RealtimeWire;
      model?: string;
    }
  | { role: "node"; session_id: string };

type ClientAttachment = DialectState & {
  opened_at: number;
  /** Persisted copy of the last frame time (the alarm writes it), for a wake after hibernation. */
  last_frame_at: number;
  ending_since: number | null;
};

interface NodeAttachment {
  joined_at: number;
}

interface SessionMeta {
  session_id: string;
  mode: SessionMode;
  /** The API key the stream is counted against (set when the client joins; its release names it). */
  key_id?: string;
  finished: boolean;
}

/**
 * The internal upgrade request the Worker sends a session object for one side of the stream.
 *
 * @example await liveSession(env, id).fetch(sessionRequest(request, { role: "node", session_id: id }));
 */
export function sessionRequest(original: Request, join: SessionJoin): Request {
  const url = new URL(`https://live-session/${join.role}`);
  for (const [name, value] of Object.entries(join)) url.searchParams.set(name, value);
  return new Request(url, { headers: original.headers });
}

/**
 * One live stream: the client's socket and the assigned node's socket meet here and frames are
 * relayed as they arrive (binary audio untouched, control validated, results forwarded). A live-mic
 * session holds the gate claim: renews it every tick and releases it on every way out. A
 * single-device session translates: its results go out in the spec's `{is_final, original,
 * translation}` shape, and audio sent before the engine is in waits (bounded) instead of being dropped.
 */
export class LiveSession extends DurableObject<Env> {
  /** Last client frame, in memory (the alarm persists it, so a frame costs no storage write). */
  #lastClientFrameAt: number | null = null;
  /** Audio that arrived before the engine, where the dialect lets it wait. */
  readonly #pending = new PendingAudio();
  /** The client's dialect, rebuilt from its socket's attachment after hibernation. */
  #dialect: ClientDialect | null = null;

  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const role: SessionJoin["role"] = url.pathname === "/client" ? "client" : "node";
    const sessionId = url.searchParams.get("session_id") ?? "";
    const meta = await this.ctx.storage.get<SessionMeta>(META_KEY);
    const pair = new WebSocketPair();
    const now = Date.now();
    if (meta?.finished || this.open(role === "client" ? CLIENT_TAG : NODE_TAG)) {
      // a node dialling in late, or a second socket for the same side: this session has no place for it
      pair[1].accept();
      closeSocket(pair[1], LiveClose.normal, "session over");
      return new Response(null, { status: 101, webSocket: pair[0] });
    }
    const mode = sessionMode(url.searchParams.get("mode"));
    if (role === "client" || !meta) {
      // the node may have dialled in first; the client's join says what the session is (and its key)
      const key_id = url.searchParams.get("key_id") ?? undefined;
      await this.ctx.storage.put<SessionMeta>(META_KEY, {
        session_id: sessionId,
        mode,
        key_id,
        finished: false,
      });
    }
    if (role === "client") {
      this.ctx.acceptWebSocket(pair[1], [CLIENT_TAG]);
      pair[1].serializeAttachment({
        ...initialState(mode, url.searchParams),
        opened_at: now,
        last_frame_at: now,
        ending_since: null,
      } satisfies ClientAttachment);
    } else {
      this.ctx.acceptWebSocket(pair[1], [NODE_TAG]);
      pair[1].serializeAttachment({ joined_at: now } satisfies NodeAttachment);
    }
    this.pairIfBoth(sessionId);
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(now + this.tickMs());
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  /**
   * The hub found the engine's node identity revoked: the session ends as if the engine had gone (also
   * when it never dialled in), so the client is not left with an engine that no longer answers to us.
   */
  async dropEngine(): Promise<void> {
    await this.finish({
      code: LiveClose.engineLost,
      reason: "streaming engine revoked",
      error: "the streaming engine was withdrawn; reconnect to start a new session",
    });
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    if (this.ctx.getTags(ws).includes(CLIENT_TAG)) await this.fromClient(ws, message);
    else await this.fromNode(message);
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    closeSocket(ws, code, reason);
    if (this.ctx.getTags(ws).includes(CLIENT_TAG)) {
      await this.finish({ code: LiveClose.normal, reason: "client left" });
    } else {
      await this.finish({
        code: LiveClose.engineLost,
        reason: "streaming engine disconnected",
        error: "the streaming engine disconnected; reconnect to start a new session",
      });
    }
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    await this.webSocketClose(ws, LiveClose.engineLost, "socket error");
  }

  override async alarm(): Promise<void> {
    const meta = await this.ctx.storage.get<SessionMeta>(META_KEY);
    if (!meta) return;
    // The grace after the end has passed: nothing of the session is kept.
    if (meta.finished) return this.ctx.storage.deleteAll();
    const now = Date.now();
    const client = this.open(CLIENT_TAG);
    const node = this.open(NODE_TAG);
    const attachment = client ? attachmentOf<ClientAttachment>(client) : null;
    if (client && attachment && this.#lastClientFrameAt !== null) {
      client.serializeAttachment({
        ...attachment,
        last_frame_at: this.#lastClientFrameAt,
      } satisfies ClientAttachment);
    }
    const outcome = checkTimeouts(
      {
        now,
        clientOpenedAt: attachment?.opened_at ?? null,
        lastClientFrameAt: this.#lastClientFrameAt ?? attachment?.last_frame_at ?? null,
        endingSince: attachment?.ending_since ?? null,
        nodeJoinedAt: node ? (attachmentOf<NodeAttachment>(node)?.joined_at ?? now) : null,
      },
      { idleTimeoutMs: this.idleTimeoutMs(), maxSessionMs: workerConfig(this.env).liveMaxSessionMs },
    );
    if (!client && !node) return this.finish({ code: LiveClose.normal, reason: "nobody left" });
    if (outcome) return this.finish(outcome);
    if (meta.mode === "mic" && !(await renewMic(this.env, meta.session_id))) {
      return this.finish({
        code: LiveClose.engineLost,
        reason: "session gate lost",
        error: "the session expired",
      });
    }
    // The session may have finished while the hub answered; its grace alarm then stays.
    if ((await this.ctx.storage.get<SessionMeta>(META_KEY))?.finished) return;
    await this.ctx.storage.setAlarm(now + this.tickMs());
  }

  private async fromClient(ws: WebSocket, frame: string | ArrayBuffer): Promise<void> {
    this.#lastClientFrameAt = Date.now();
    const attachment = attachmentOf<ClientAttachment>(ws);
    const dialect = this.dialect(ws);
    if (!attachment || !dialect) return;
    const step = dialect.read(frame);
    if (step.close) return this.finish(step.close);
    const node = this.open(NODE_TAG);
    if (step.audio) {
      if (attachment.ending_since !== null) return; // after `end` the stream takes no more audio
      if (node) sendRaw(node, step.audio);
      else if (dialect.waitsForEngine) this.#pending.push(step.audio);
      else sendJson(ws, dialect.error("audio sent before `ready` is discarded"));
      return;
    }
    for (const message of step.toClient ?? []) sendJson(ws, message);
    this.keepState(ws, attachment, dialect, step.end ? Date.now() : attachment.ending_since);
    if (step.end && !node) return this.finish({ code: LiveClose.normal, reason: "end of stream" });
    if (node) for (const message of step.toNode ?? []) sendJson(node, message);
  }

  private async fromNode(frame: string | ArrayBuffer): Promise<void> {
    const parsed = typeof frame === "string" ? parseLiveMessage(NodeToSession, frame) : null;
    if (!parsed?.ok) {
      console.error(JSON.stringify({ live_session: "bad node message", error: parsed?.error ?? "binary" }));
      return;
    }
    const message = parsed.value;
    if (message.type === "ended") return this.finish({ code: LiveClose.normal, reason: "end of stream" });
    const client = this.open(CLIENT_TAG);
    const dialect = client ? this.dialect(client) : null;
    if (!client || !dialect) return;
    if (
      message.type === "translated" ||
      message.type === "synthesized" ||
      message.type === "synthesis_failed"
    )
      return; // answers to what only rooms ask
    this.carryOut(client, dialect.fromEngine(message));
  }

  /**
   * Once both sides are in: the node learns the client's config (in its dialect's terms), the client
   * hears its greeting, and audio that waited goes to the node.
   */
  private pairIfBoth(sessionId: string): void {
    const client = this.open(CLIENT_TAG);
    const node = this.open(NODE_TAG);
    const dialect = client ? this.dialect(client) : null;
    if (!client || !node || !dialect) return;
    this.carryOut(client, dialect.paired(sessionId));
    for (const frame of this.#pending.take()) sendRaw(node, frame);
  }

  /** Sends a step's messages to both sides and keeps the dialect's state with the client's socket. */
  private carryOut(client: WebSocket, step: DialectStep): void {
    const node = this.open(NODE_TAG);
    if (node) for (const message of step.toNode ?? []) sendJson(node, message);
    for (const message of step.toClient ?? []) sendJson(client, message);
    const attachment = attachmentOf<ClientAttachment>(client);
    if (attachment && this.#dialect)
      this.keepState(client, attachment, this.#dialect, attachment.ending_since);
  }

  private keepState(
    ws: WebSocket,
    attachment: ClientAttachment,
    dialect: ClientDialect,
    endingSince: number | null,
  ): void {
    ws.serializeAttachment({
      ...attachment,
      state: dialect.state(),
      ending_since: endingSince,
    } as ClientAttachment);
  }

  /** The client's dialect (made once per object life from the socket's attachment). */
  private dialect(client: WebSocket): ClientDialect | null {
    if (this.#dialect) return this.#dialect;
    const attachment = attachmentOf<ClientAttachment>(client);
    if (!attachment) return null;
    this.#dialect = dialectOf(attachment);
    return this.#dialect;
  }

  /** Ends the session once: tells and closes the client, closes the node, releases the gate. */
  private async finish(outcome: SessionOutcome): Promise<void> {
    const meta = await this.ctx.storage.get<SessionMeta>(META_KEY);
    if (!meta || meta.finished) return;
    await this.ctx.storage.put<SessionMeta>(META_KEY, { ...meta, finished: true });
    // Frames sent while a write was in flight (an alarm re-arming, say) wait behind the output gate; the
    // close must not overtake them, or a client loses the finals just before it (one CI run lost a final so).
    await this.ctx.storage.sync();
    // frees the engine's slot, the key's stream and the live-mic gate before anyone sees the close
    if (meta.key_id !== undefined) {
      const release = { session_id: meta.session_id, key_id: meta.key_id, mic: meta.mode === "mic" };
      await releaseStream(this.env, release).catch((error: unknown) =>
        console.error(JSON.stringify({ live_session: "release failed", error: String(error) })),
      );
    }
    const client = this.open(CLIENT_TAG);
    if (client) {
      const dialect = this.dialect(client);
      if (outcome.error && dialect) sendJson(client, dialect.error(outcome.error));
      closeSocket(client, outcome.code, outcome.reason);
    }
    const node = this.open(NODE_TAG);
    if (node) closeSocket(node, LiveClose.normal, "session over");
    await this.ctx.storage.setAlarm(Date.now() + FINISHED_GRACE_MS);
  }

  /** The open socket of one side, if any (a closing one no longer counts). */
  private open(tag: string): WebSocket | null {
    return this.ctx.getWebSockets(tag).find((ws) => ws.readyState === WebSocket.OPEN) ?? null;
  }

  private idleTimeoutMs(): number {
    return workerConfig(this.env).liveIdleTimeoutMs;
  }

  /** Alarm period: a vanished client is noticed within a third of the idle timeout, at most a second. */
  private tickMs(): number {
    return Math.min(1_000, Math.max(100, this.idleTimeoutMs() / 3));
  }
}
