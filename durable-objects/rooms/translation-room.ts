import { DurableObject } from "cloudflare:workers";
import { workerConfig } from "../../platform/config.ts";
import { liveHub } from "../../platform/stubs.ts";
import { NodeToSession, parseLiveMessage, type SessionToNode } from "../../protocol/live.ts";
import {
  CLIENT_ID,
  LIVE_FORMAT,
  LIVE_SAMPLE_RATE,
  RESUME_TOKEN,
  RoomClose,
  type RoomError,
  roomStreamPath,
  type SessionDetails,
  translationLanguage,
} from "../../protocol/rooms.ts";
import { closeSocket, sendJson, sendRaw } from "../live/sockets.ts";
import {
  acceptClient,
  acceptLink,
  acceptStream,
  clientSockets,
  clients,
  connOf,
  liveStream,
  type StreamConn,
  streams,
  tell,
  tellEach,
} from "./connections.ts";
import { RoomHistory } from "./room-history.ts";
import { newResumeToken, placeFor, resumeHash } from "./room-identity.ts";
import {
  finalFor,
  frameLevelDb,
  historyEntry,
  interimFor,
  type Participant,
  partnerLanguage,
  type RoomSession,
  readRoomFrame,
  streamConfig,
  VOICE_DB,
} from "./room-protocol.ts";
import { RoomStore } from "./room-store.ts";
import { engineRefusal, speakerRefusal } from "./speaker-admission.ts";
import { LINK_TIMEOUT_MS, STREAM_FLUSH_TIMEOUT_MS, STREAM_IDLE_MS, StreamBook } from "./stream-book.ts";

/** A participant whose socket dropped keeps its place this long. */
export const RECONNECT_GRACE_MS = 30_000;
/** Alarm period while engine links are waited for or running. */
const TICK_MS = 1_000;

/** What the Worker tells the room on a participant's upgrade, or on an engine's. */
export type RoomJoin =
  | { role: "client"; language: string | null; client_id: string | null; resume: string | null }
  | { role: "stream"; stream_id: string };

/**
 * The internal upgrade request for one side of a room.
 *
 * @example await translationRoom(env, id).fetch(roomRequest(request, { role: "stream", stream_id }));
 */
export function roomRequest(original: Request, join: RoomJoin): Request {
  const url = new URL(`https://translation-room/${join.role}`);
  for (const [name, value] of Object.entries(join)) if (value !== null) url.searchParams.set(name, value);
  return new Request(url, { headers: original.headers });
}

/**
 * One multi-device conversation. Participants' sockets, the engine streams that hear them (one per
 * speaker while it talks: the hub assigns an engine, which dials in here) and translate-only links
 * all meet in this object, hibernatable throughout. Each final is translated by the engine once per
 * listener language and handed to everyone in their own; interims go to the speaker only. The room
 * expires after ROOM_TTL_SEC without activity.
 */
export class TranslationRoom extends DurableObject<Env> {
  readonly #store: RoomStore;
  readonly #book = new StreamBook();
  readonly #history: RoomHistory;
  /** Engine results are handled one at a time, in arrival order (each reads storage before it sends). */
  #engineQueue: Promise<void> = Promise.resolve();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new RoomStore(ctx.storage);
    this.#history = new RoomHistory({ ctx, store: this.#store, book: this.#book, hub: () => this.#hub() });
  }

  /** Creates the session (POST /api/v1/session/create). */
  async create(session: Omit<RoomSession, "created_at">): Promise<void> {
    await this.#store.createSession({ ...session, created_at: Date.now() });
    await this.#schedule();
  }

  /** The session's languages, or null when it does not exist (never created, or expired). */
  async details(): Promise<SessionDetails | null> {
    const session = await this.#store.session();
    return session ? { user_a_lang: session.user_a_lang, user_a_translate: session.user_a_translate } : null;
  }

  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const pair = new WebSocketPair();
    const response = new Response(null, { status: 101, webSocket: pair[0] });
    if (url.pathname === "/stream") await this.#engineJoins(pair[1], url.searchParams.get("stream_id") ?? "");
    else await this.#participantJoins(pair[1], url.searchParams);
    return response;
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const conn = connOf(ws);
    if (conn?.role === "client") {
      await this.#fromParticipant(ws, conn.client_id, message);
    } else if (conn?.role === "stream") {
      const handled = this.#engineQueue.then(() => this.#fromEngine(ws, conn, message));
      this.#engineQueue = handled.catch(() => undefined);
      await handled;
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
    } else if (conn?.role === "stream" && conn.ending_since === null) {
      this.#warn(
        conn.client_id,
        "engine_lost",
        "the streaming engine disconnected; speak again to reconnect",
      );
    } else if (conn?.role === "link") {
      await this.#history.answer(conn.link_id, null);
    }
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    await this.webSocketClose(ws, 1006, "socket error");
  }

  override async alarm(): Promise<void> {
    const session = await this.#store.session();
    if (!session) return;
    const now = Date.now();
    if (now >= (await this.#store.expiresAt(this.#ttlMs()))) return this.#expire();
    const participants = await this.#reconcile(now);
    const gone = participants.filter((p) => p.left_at !== null && now - p.left_at >= RECONNECT_GRACE_MS);
    if (gone.length > 0) await this.#leave(gone.map((p) => p.client_id));
    for (const late of this.#book.expired(now)) {
      this.#warn(late.client_id, "engine_lost", "the streaming engine did not join; speak again to retry");
    }
    for (const { ws, conn } of streams(this.ctx)) {
      if (conn.ending_since === null && now - this.#book.lastVoiced(conn.client_id, now) > STREAM_IDLE_MS) {
        this.#endStream(ws, conn, now);
      } else if (conn.ending_since !== null && now - conn.ending_since > STREAM_FLUSH_TIMEOUT_MS) {
        await this.#letGo(ws, conn);
      }
    }
    for (const link of this.#book.links.values()) {
      if (now - link.requested_at > LINK_TIMEOUT_MS) await this.#history.answer(link.link_id, null);
    }
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
    const language = translationLanguage(params.get("language"));
    if (!language) {
      return refuse(
        RoomClose.badRequest,
        `unsupported or missing language: ${params.get("language") ?? "none"}`,
      );
    }
    const asked = params.get("client_id");
    if (asked !== null && !CLIENT_ID.test(asked)) {
      return refuse(RoomClose.badRequest, "client_id must be 8-64 letters, digits, - or _");
    }
    const resume = params.get("resume");
    if (resume !== null && !RESUME_TOKEN.test(resume)) {
      return refuse(
        RoomClose.badRequest,
        "resume must be the resume_token of a welcome (43 base64url characters)",
      );
    }
    // hashing happens before participants are read, so no other event interleaves between read and write
    const [presented, fresh] = await Promise.all([
      resume === null ? null : resumeHash(resume),
      newResumeToken(),
    ]);
    const now = Date.now();
    const participants = await this.#reconcile(now);
    const { known, client_id: clientId } = placeFor(participants, { asked, resumeHash: presented });
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
    const me: Participant = known
      ? { ...known, language, left_at: null, resume_hash: fresh.hash }
      : { client_id: clientId, language, joined_at: now, left_at: null, resume_hash: fresh.hash };
    const everyone = [...participants.filter((p) => p.client_id !== clientId), me];
    await this.#store.saveParticipants(everyone);
    acceptClient(this.ctx, ws, clientId, now);
    this.#store.touch(now, true);
    sendJson(ws, {
      type: "welcome",
      conversation_id: session.conversation_id,
      client_id: clientId,
      resume_token: fresh.token,
      language,
      client_count: everyone.length,
      max_participants: this.#maxParticipants(),
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
      }));
    }
    this.#announcePartners(everyone, session, changed ? null : clientId);
    if (changed) this.#configureStreams(everyone, session);
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
    for (const { ws, conn } of streams(this.ctx, clientId)) this.#endStream(ws, conn, Date.now());
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
    this.#configureStreams(remaining, session);
  }

  /** Tells participants their partner language (`only`: just that one). */
  #announcePartners(participants: readonly Participant[], session: RoomSession, only: string | null): void {
    tellEach(this.ctx, (clientId) => {
      if (only !== null && clientId !== only) return null;
      return { type: "partner_language", ...partnerLanguage(participants, clientId, session) };
    });
  }

  async #fromParticipant(ws: WebSocket, clientId: string, frame: string | ArrayBuffer): Promise<void> {
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
      for (const { ws: engine, conn } of streams(this.ctx, clientId)) this.#endStream(engine, conn, now);
    } else {
      await this.#audio(clientId, action.data, now);
    }
  }

  // ---- engine streams ----

  /** A participant's audio: to its running stream, or waiting for one, or (when loud) asking for one. */
  async #audio(clientId: string, frame: ArrayBuffer, now: number): Promise<void> {
    const loud = frameLevelDb(frame) > VOICE_DB;
    if (loud) this.#book.voiced(clientId, now);
    const live = liveStream(this.ctx, clientId);
    if (live) return void sendRaw(live.ws, frame);
    const waiting = this.#book.waitingFor(clientId);
    if (waiting) return waiting.audio.push(frame);
    if (!loud) return this.#book.remember(clientId, frame);
    const session = await this.#store.session();
    if (!session) return;
    const { roomMaxSpeakers, liveMaxStreamsPerKey } = workerConfig(this.env);
    const crowded = speakerRefusal(this.#speaking(), clientId, roomMaxSpeakers);
    if (crowded) return this.#warn(clientId, crowded.code, crowded.message);
    const streamId = crypto.randomUUID();
    this.#book.request(clientId, streamId, frame, now);
    const path = roomStreamPath(session.conversation_id, streamId);
    const got = await this.#hub()
      .assign({ session_id: streamId, path, mode: "stream", key_id: session.creator_key_id })
      .catch((error: unknown) => ({
        ok: false as const,
        reason: "no_engine" as const,
        message: `the live hub failed: ${String(error)}`,
      }));
    if (!got.ok) {
      this.#book.take(streamId);
      const refused = engineRefusal(got, liveMaxStreamsPerKey);
      return this.#warn(clientId, refused.code, refused.message);
    }
    await this.#schedule();
  }

  /**
   * An engine dialled in: for a booked stream it gets the speaker's config and then the waiting audio,
   * in one go, so no frame can overtake them (frames arriving meanwhile still join the booking).
   */
  async #engineJoins(ws: WebSocket, streamId: string): Promise<void> {
    const now = Date.now();
    const link = this.#book.links.get(streamId);
    if (link) {
      acceptLink(this.ctx, ws, streamId, now);
      await this.#history.linkJoined(ws, link.link_id);
      return;
    }
    const [session, participants] = await Promise.all([this.#store.session(), this.#store.participants()]);
    const booked = this.#book.take(streamId);
    const config = booked && session ? streamConfig(participants, booked.client_id, session) : null;
    if (!booked || !config || clientSockets(this.ctx, booked.client_id).length === 0) {
      ws.accept();
      closeSocket(ws, RoomClose.normal, "no such stream");
      return;
    }
    acceptStream(this.ctx, ws, booked.client_id, streamId, now);
    sendJson(ws, config);
    for (const frame of booked.audio.take()) sendRaw(ws, frame);
  }

  #configureStreams(participants: readonly Participant[], session: RoomSession): void {
    for (const { ws, conn } of streams(this.ctx)) {
      const config = streamConfig(participants, conn.client_id, session);
      if (config && conn.ending_since === null) sendJson(ws, config);
    }
  }

  /** Participants whose stream takes audio or is asked of the hub. */
  #speaking(): Set<string> {
    const live = streams(this.ctx).filter(({ conn }) => conn.ending_since === null);
    return new Set([...live.map(({ conn }) => conn.client_id), ...this.#book.waitingSpeakers()]);
  }

  /**
   * Tells the hub the stream's engine slot (and the creator key's stream) is free, at once, before the
   * node's report, then closes it: whoever sees the close finds the slot free.
   */
  async #letGo(ws: WebSocket, conn: StreamConn): Promise<void> {
    await this.#hub()
      .release(conn.stream_id)
      .catch((error: unknown) =>
        console.error(JSON.stringify({ room: "release failed", error: String(error) })),
      );
    closeSocket(ws, RoomClose.normal, "stream over");
  }

  /** Asks the engine to finish (its last final comes, then `ended`). */
  #endStream(ws: WebSocket, conn: StreamConn, now: number): void {
    if (conn.ending_since !== null) return;
    ws.serializeAttachment({ ...conn, ending_since: now } satisfies StreamConn);
    sendJson(ws, { type: "end" } satisfies SessionToNode);
  }

  async #fromEngine(ws: WebSocket, conn: StreamConn, frame: string | ArrayBuffer): Promise<void> {
    const parsed = typeof frame === "string" ? parseLiveMessage(NodeToSession, frame) : null;
    if (!parsed?.ok) {
      console.error(JSON.stringify({ room: "bad engine message", error: parsed?.error ?? "binary" }));
      return;
    }
    const message = parsed.value;
    if (message.type === "ended") return this.#letGo(ws, conn);
    if (message.type === "translated") return;
    if (message.type === "error") return this.#warn(conn.client_id, "engine_error", message.message, true);
    const session = await this.#store.session();
    const participants = await this.#store.participants();
    const speaker = participants.find((p) => p.client_id === conn.client_id);
    if (!session || !speaker) return;
    const partner = partnerLanguage(participants, speaker.client_id, session).lang;
    if (message.type === "interim") {
      tell(this.ctx, speaker.client_id, interimFor(message, speaker, partner));
      return;
    }
    const now = Date.now();
    const entry = historyEntry(message, speaker.client_id, now);
    tellEach(this.ctx, (clientId) => {
      const reader = participants.find((p) => p.client_id === clientId);
      return reader ? finalFor(entry, reader, partner) : null;
    });
    this.#store.touch(now);
    await this.#store.addHistory(entry);
  }

  // ---- expiry and clocks ----

  /** The room is over: everyone is told (4408), the engines let go, and its storage deleted. */
  async #expire(): Promise<void> {
    for (const { ws } of clients(this.ctx))
      closeSocket(ws, RoomClose.expired, "room expired after inactivity");
    for (const ws of this.ctx.getWebSockets()) closeSocket(ws, RoomClose.normal, "room expired");
    await this.#store.clear();
  }

  /** The next alarm: the expiry, a reconnect grace running out, or the next tick while engines are busy. */
  async #schedule(): Promise<void> {
    const now = Date.now();
    let next = await this.#store.expiresAt(this.#ttlMs());
    for (const p of await this.#store.participants()) {
      if (p.left_at !== null) next = Math.min(next, p.left_at + RECONNECT_GRACE_MS);
    }
    if (this.#book.busy || streams(this.ctx).length > 0) next = Math.min(next, now + TICK_MS);
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > next || current < now)
      await this.ctx.storage.setAlarm(Math.max(next, now + 10));
  }

  /** Tells a participant something went wrong (refusals at most once per cooldown). */
  #warn(clientId: string, code: RoomError["code"], message: string, always = false): void {
    if (!always && !this.#book.mayWarn(clientId, Date.now())) return;
    tell(this.ctx, clientId, { type: "error", code, message });
  }

  #hub() {
    return liveHub(this.env);
  }

  #ttlMs(): number {
    return workerConfig(this.env).roomTtlMs;
  }

  #maxParticipants(): number {
    return workerConfig(this.env).roomMaxParticipants;
  }
}
