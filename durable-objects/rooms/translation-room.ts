import { DurableObject } from "cloudflare:workers";
import { workerConfig } from "../../platform/config.ts";
import {
  type HostControl,
  type HostControlResult,
  LIVE_FORMAT,
  LIVE_SAMPLE_RATE,
  RoomClose,
  type RoomError,
  type SessionDetails,
} from "../../protocol/rooms.ts";
import { assignStream } from "../live/live-streams.ts";
import { closeSocket, sendJson } from "../live/sockets.ts";
import {
  acceptClient,
  type ClientConn,
  clientSockets,
  clients,
  connOf,
  markListener,
  streams,
  tellEach,
} from "./connections.ts";
import {
  type ControlRefusal,
  decideControl,
  type HostProof,
  hostRefusal,
  wasRemoved,
} from "./host-controls.ts";
import { RoomHistory } from "./room-history.ts";
import { newResumeToken, placeFor, resumeHash } from "./room-identity.ts";
import { readParticipantAsk } from "./room-join.ts";
import {
  type Participant,
  participantList,
  partnerLanguage,
  publicParticipant,
  type RoomSession,
  readRoomFrame,
} from "./room-protocol.ts";
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
 * expires after ROOM_TTL_SEC without activity, and ends ROOM_MAX_AGE_SEC after it was created; its
 * transcript stays for its creator ROOM_TRANSCRIPT_TTL_SEC more.
 */
export class TranslationRoom extends DurableObject<Env> {
  readonly #store: RoomStore;
  readonly #book = new StreamBook();
  readonly #history: RoomHistory;
  readonly #streams: RoomStreams;

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
    const decided = decideControl(session, await this.#reconcile(Date.now()), control);
    if (!decided.ok) return decided;
    await this.#store.saveSession(decided.session);
    if (decided.system) tellEach(this.ctx, () => decided.system);
    const { target } = decided;
    if (control.action === "end") {
      await this.#end(RoomClose.endedByHost, "the host ended the room");
      return { locked: decided.session.locked ?? false, ended: true, participants: [] };
    }
    if (control.action === "remove" && target) {
      for (const ws of clientSockets(this.ctx, target.client_id))
        closeSocket(ws, RoomClose.removed, "removed from the room by its host");
      this.#streams.endFor(target.client_id, Date.now());
      await this.#leave([target.client_id]);
    } else if (target && decided.system) {
      await this.#store.saveParticipants(decided.participants);
      markListener(this.ctx, target.client_id, target.role === "listener");
      if (target.role === "listener") this.#streams.endFor(target.client_id, Date.now());
      tellEach(this.ctx, () => ({
        type: "participants",
        participants: participantList(decided.participants),
      }));
    }
    const participants = participantList(await this.#store.participants());
    return { locked: decided.session.locked ?? false, ended: false, participants };
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
    else await this.#participantJoins(pair[1], url.searchParams);
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
      await this.#dropped(conn.client_id, code === RoomClose.normal);
    } else if (conn?.role === "stream") {
      this.#streams.engineClosed(conn);
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
    const participants = await this.#reconcile(now);
    const gone = participants.filter((p) => p.left_at !== null && now - p.left_at >= RECONNECT_GRACE_MS);
    if (gone.length > 0) await this.#leave(gone.map((p) => p.client_id));
    await this.#streams.tick(now);
    await this.#schedule();
  }

  // ---- participants ----

  async #participantJoins(ws: WebSocket, params: URLSearchParams): Promise<void> {
    const session = await this.#store.session();
    const refuse = (code: number, reason: string) => {
      ws.accept();
      closeSocket(ws, code, reason);
    };
    if (!session) return refuse(RoomClose.notFound, "conversation not found or expired");
    const ask = readParticipantAsk(params);
    if ("code" in ask) return refuse(ask.code, ask.reason);
    const { language, asked, resume, role, name } = ask;
    // hashing happens before participants are read, so no other event interleaves between read and write
    const [presented, fresh] = await Promise.all([
      resume === null ? null : resumeHash(resume),
      newResumeToken(),
    ]);
    const now = Date.now();
    const participants = await this.#reconcile(now);
    if (wasRemoved(session, presented))
      return refuse(RoomClose.removed, "you were removed from this room by its host");
    const { known, client_id: clientId } = placeFor(participants, { asked, resumeHash: presented });
    if (!known && session.locked) return refuse(RoomClose.locked, "the host has locked the room");
    if (!known && participants.length >= this.#maxParticipants()) {
      return refuse(RoomClose.full, `the room is full (${this.#maxParticipants()} participants)`);
    }
    for (const older of clientSockets(this.ctx, clientId)) {
      closeSocket(
        older,
        RoomClose.replaced,
        "replaced by a newer connection with this participant's resume token",
      );
    }
    // a place taken back keeps its role (the host may have changed it) and, unless renamed, its name
    const me: Participant = known
      ? { ...known, language, left_at: null, resume_hash: fresh.hash, name: name ?? known.name ?? null }
      : { client_id: clientId, language, joined_at: now, left_at: null, resume_hash: fresh.hash, name, role };
    const everyone = [...participants.filter((p) => p.client_id !== clientId), me];
    await this.#store.saveParticipants(everyone);
    const pub = publicParticipant(me);
    acceptClient(this.ctx, ws, clientId, now, pub.role === "listener");
    this.#store.touch(now, true);
    sendJson(ws, {
      type: "welcome",
      conversation_id: session.conversation_id,
      client_id: clientId,
      resume_token: fresh.token,
      language,
      client_count: everyone.length,
      max_participants: this.#maxParticipants(),
      role: pub.role,
      name: pub.name,
      participants: participantList(everyone),
      locked: session.locked ?? false,
      sample_rate: LIVE_SAMPLE_RATE,
      format: LIVE_FORMAT,
    });
    const changed = !known || known.language !== language;
    if (!known) {
      tellEach(this.ctx, () => ({
        type: "user_joined",
        client_count: everyone.length,
        client_id: clientId,
        language,
        name: pub.name,
        role: pub.role,
      }));
    }
    this.#announcePartners(everyone, session, changed ? null : clientId);
    if (changed) this.#streams.configure(everyone, session);
    await this.#history.replay(me, everyone, session);
    await this.#schedule();
  }

  /**
   * Participants that look connected but have no socket (the object was reset and never heard their
   * close) start their reconnect grace now.
   */
  async #reconcile(now: number): Promise<Participant[]> {
    const participants = await this.#store.participants();
    const ghosts = participants.filter(
      (p) => p.left_at === null && clientSockets(this.ctx, p.client_id).length === 0,
    );
    if (ghosts.length === 0) return participants;
    const fixed = participants.map((p) => (ghosts.includes(p) ? { ...p, left_at: now } : p));
    await this.#store.saveParticipants(fixed);
    return fixed;
  }

  /** A participant's socket closed: a normal close leaves now, a drop keeps the place for the grace. */
  async #dropped(clientId: string, leaving: boolean): Promise<void> {
    this.#streams.endFor(clientId, Date.now());
    this.#book.forget(clientId);
    if (leaving) return this.#leave([clientId]);
    const participants = await this.#store.participants();
    const now = Date.now();
    await this.#store.saveParticipants(
      participants.map((p) => (p.client_id === clientId ? { ...p, left_at: now } : p)),
    );
    await this.#schedule();
  }

  async #leave(clientIds: readonly string[]): Promise<void> {
    const session = await this.#store.session();
    if (!session) return;
    const left = new Set(clientIds);
    const remaining = (await this.#store.participants()).filter((p) => !left.has(p.client_id));
    await this.#store.saveParticipants(remaining);
    for (const clientId of left) {
      for (const ws of clientSockets(this.ctx, clientId)) closeSocket(ws, RoomClose.normal, "left the room");
      tellEach(this.ctx, () => ({ type: "user_left", client_count: remaining.length, client_id: clientId }));
    }
    this.#announcePartners(remaining, session, null);
    this.#streams.configure(remaining, session);
  }

  /** Tells participants their partner language (`only`: just that one). */
  #announcePartners(participants: readonly Participant[], session: RoomSession, only: string | null): void {
    tellEach(this.ctx, (clientId) => {
      if (only !== null && clientId !== only) return null;
      return { type: "partner_language", ...partnerLanguage(participants, clientId, session) };
    });
  }

  async #fromParticipant(ws: WebSocket, conn: ClientConn, frame: string | ArrayBuffer): Promise<void> {
    const clientId = conn.client_id;
    const now = Date.now();
    this.#store.touch(now);
    const action = readRoomFrame(frame);
    if (action.kind === "close") {
      closeSocket(ws, action.code, action.reason);
      return this.#dropped(clientId, false);
    }
    if (action.kind === "error") {
      const code = typeof frame === "string" ? "bad_message" : "bad_frame";
      sendJson(ws, { type: "error", code, message: action.message } satisfies RoomError);
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

  #maxParticipants(): number {
    return workerConfig(this.env).roomMaxParticipants;
  }
}
