import { DurableObject } from "cloudflare:workers";
import { workerConfig } from "../../platform/config.ts";
import {
  type HostControl,
  type HostControlResult,
  RoomClose,
  type RoomError,
  type SessionDetails,
} from "../../protocol/rooms.ts";
import { assignStream } from "../live/live-streams.ts";
import { closeSocket, sendJson } from "../live/sockets.ts";
import { type ClientConn, clientSockets, clients, connOf, streams, tellEach } from "./connections.ts";
import { type ControlRefusal, decideControl, type HostProof, hostRefusal } from "./host-controls.ts";
import { RoomHistory } from "./room-history.ts";
import { newResumeToken } from "./room-identity.ts";
import { RoomMembers } from "./room-members.ts";
import { participantList, type RoomSession, readRoomFrame } from "./room-protocol.ts";
import { RoomStore } from "./room-store.ts";
import { RoomStreams } from "./room-streams.ts";
import type { TranscriptLine } from "./room-transcript.ts";
import { StreamBook } from "./stream-book.ts";

/** A participant whose socket dropped keeps its place this long. */
export const RECONNECT_GRACE_MS = 30_000;
/** Alarm period while engine links are waited for or running. */
const TICK_MS = 1_000;

/**
 * One multi-device conversation. Participants' sockets, the engine streams that hear them (one per
 * speaker while it talks: the hub assigns an engine, which dials in here) and translate-only links
 * all meet in this object, hibernatable throughout. Each final is translated by the engine once per
 * listener language and handed to everyone in their own; interims go to the speaker only. The room
 * expires after ROOM_TTL_SEC without activity, ends ROOM_MAX_AGE_SEC after it was created, or when its
 * host ends it; its transcript stays for its creator ROOM_TRANSCRIPT_TTL_SEC more. Participants live in
 * room-members.ts, engine streams in room-streams.ts, the host's decisions in host-controls.ts.
 */
export class TranslationRoom extends DurableObject<Env> {
  readonly #store: RoomStore;
  readonly #book = new StreamBook();
  readonly #history: RoomHistory;
  readonly #streams: RoomStreams;
  readonly #members: RoomMembers;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new RoomStore(ctx.storage);
    this.#history = new RoomHistory({
      ctx,
      store: this.#store,
      book: this.#book,
      assign: (ask) => assignStream(env, ask),
    });
    this.#streams = new RoomStreams({
      ctx,
      env,
      store: this.#store,
      book: this.#book,
      history: this.#history,
      schedule: () => this.#schedule(),
    });
    this.#members = new RoomMembers({
      ctx,
      env,
      store: this.#store,
      book: this.#book,
      streams: this.#streams,
      history: this.#history,
      schedule: () => this.#schedule(),
    });
  }

  /** Creates the session (POST /api/v1/session/create); returns its host token (kept only hashed). */
  async create(
    session: Omit<RoomSession, "created_at" | "host_token_hash">,
  ): Promise<{ host_token: string }> {
    const host = await newResumeToken();
    await this.#store.createSession({ ...session, created_at: Date.now(), host_token_hash: host.hash });
    await this.#schedule();
    return { host_token: host.token };
  }

  /**
   * A host action (POST /api/v1/session/{id}/control, host-controls.ts): everyone is told, and the
   * participants' sockets and streams follow.
   */
  async control(proof: HostProof, control: HostControl): Promise<HostControlResult | ControlRefusal> {
    const session = await this.#store.session();
    if (!session) return { ok: false, reason: "not_found" };
    const refusal = hostRefusal(session, proof);
    if (refusal) return refusal;
    const decided = decideControl(session, await this.#members.reconcile(Date.now()), control);
    if (!decided.ok) return decided;
    await this.#store.saveSession(decided.session);
    if (decided.system) tellEach(this.ctx, () => decided.system);
    const locked = decided.session.locked ?? false;
    if (control.action === "end") {
      await this.#end(RoomClose.endedByHost, "the host ended the room");
      return { locked, ended: true, participants: [] };
    }
    await this.#members.applyControl(decided);
    return { locked, ended: false, participants: participantList(await this.#store.participants()) };
  }

  /** The session's languages, or null when it does not exist (never created, or expired). */
  async details(): Promise<SessionDetails | null> {
    const session = await this.#store.session();
    return session ? { user_a_lang: session.user_a_lang, user_a_translate: session.user_a_translate } : null;
  }

  /** The room's transcript for its creator's key; null for anyone else, or when there is none. */
  async transcript(keyId: string): Promise<TranscriptLine[] | null> {
    return this.#store.transcriptFor(keyId);
  }

  /** Deletes the transcript for its creator's key (the room, if open, goes on); false for anyone else. */
  async deleteTranscript(keyId: string): Promise<boolean> {
    return this.#store.deleteTranscriptFor(keyId);
  }

  /** The hub found the node identity of a stream's engine revoked (room-streams.ts `drop`). */
  async dropEngine(streamId: string): Promise<void> {
    await this.#streams.drop(streamId);
  }

  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const pair = new WebSocketPair();
    const response = new Response(null, { status: 101, webSocket: pair[0] });
    if (url.pathname === "/stream")
      await this.#streams.engineJoins(pair[1], url.searchParams.get("stream_id") ?? "");
    else await this.#members.join(pair[1], url.searchParams);
    return response;
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const conn = connOf(ws);
    if (conn?.role === "client") {
      await this.#fromParticipant(ws, conn, message);
    } else if (conn?.role === "stream") {
      await this.#streams.fromEngine(ws, conn, message);
    } else if (conn?.role === "link" && typeof message === "string") {
      await this.#history.fromLink(ws, conn.link_id, message);
    }
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    closeSocket(ws, code, reason);
    const conn = connOf(ws);
    if (conn?.role === "client") {
      if (clientSockets(this.ctx, conn.client_id).length > 0) return; // replaced by a newer socket
      await this.#members.dropped(conn.client_id, code === RoomClose.normal);
    } else if (conn?.role === "stream") {
      await this.#streams.engineClosed(conn);
    } else if (conn?.role === "link") {
      await this.#history.answer(conn.link_id, null);
    }
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    await this.webSocketClose(ws, 1006, "socket error");
  }

  override async alarm(): Promise<void> {
    const session = await this.#store.session();
    if (!session) return this.#store.expireTranscript(Date.now());
    const now = Date.now();
    const { roomMaxAgeMs } = workerConfig(this.env);
    if (now >= session.created_at + roomMaxAgeMs) {
      const age = `maximum age (${roomMaxAgeMs / 1000} s)`;
      return this.#end(RoomClose.maxAge, `the room reached its ${age}: create a new session to go on`);
    }
    if (now >= (await this.#store.expiresAt(this.#ttlMs())))
      return this.#end(RoomClose.expired, "room expired after inactivity");
    const participants = await this.#members.reconcile(now);
    const gone = participants.filter((p) => p.left_at !== null && now - p.left_at >= RECONNECT_GRACE_MS);
    if (gone.length > 0) await this.#members.leave(gone.map((p) => p.client_id));
    await this.#streams.tick(now);
    await this.#schedule();
  }

  async #fromParticipant(ws: WebSocket, conn: ClientConn, frame: string | ArrayBuffer): Promise<void> {
    const clientId = conn.client_id;
    const now = Date.now();
    this.#store.touch(now);
    const action = readRoomFrame(frame);
    if (action.kind === "close") {
      closeSocket(ws, action.code, action.reason);
      return this.#members.dropped(clientId, false);
    }
    if (action.kind === "error") {
      const code = typeof frame === "string" ? "bad_message" : "bad_frame";
      sendJson(ws, { type: "error", code, message: action.message } satisfies RoomError);
    } else if (action.kind === "control" && action.message.type === "speak") {
      await this.#members.setSpeak(clientId, action.message.enabled);
    } else if (action.kind === "control") {
      this.#streams.endFor(clientId, now);
    } else if (conn.listener) {
      const why = "you are a listener: your audio is not transcribed (the host can give you the floor)";
      this.#streams.warn(clientId, "listener", why);
    } else {
      await this.#streams.audio(clientId, action.data, now);
    }
  }

  // ---- expiry and clocks ----

  /**
   * The room is over (idle: 4408, at its maximum age: 4410): everyone is told why, the engines let go,
   * and its storage deleted.
   */
  async #end(code: number, reason: string): Promise<void> {
    for (const { ws } of clients(this.ctx)) closeSocket(ws, code, reason);
    for (const ws of this.ctx.getWebSockets()) closeSocket(ws, RoomClose.normal, "room over");
    await this.#store.clear(workerConfig(this.env).roomTranscriptTtlMs);
  }

  /**
   * The next alarm: the idle expiry or the maximum age, a reconnect grace running out, or the next tick
   * while engines are busy.
   */
  async #schedule(): Promise<void> {
    const now = Date.now();
    const session = await this.#store.session();
    let next = await this.#store.expiresAt(this.#ttlMs());
    if (session) next = Math.min(next, session.created_at + workerConfig(this.env).roomMaxAgeMs);
    for (const p of await this.#store.participants()) {
      if (p.left_at !== null) next = Math.min(next, p.left_at + RECONNECT_GRACE_MS);
    }
    if (this.#book.busy || streams(this.ctx).length > 0) next = Math.min(next, now + TICK_MS);
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > next || current < now)
      await this.ctx.storage.setAlarm(Math.max(next, now + 10));
  }

  #ttlMs(): number {
    return workerConfig(this.env).roomTtlMs;
  }
}
