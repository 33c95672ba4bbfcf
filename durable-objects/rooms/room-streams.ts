import { workerConfig } from "../../platform/config.ts";
import { NodeToSession, parseLiveMessage, type SessionToNode } from "../../protocol/live.ts";
import { RoomClose, type RoomError } from "../../protocol/rooms.ts";
import { assignStream, releaseStream } from "../live/live-streams.ts";
import { closeSocket, sendJson, sendRaw } from "../live/sockets.ts";
import {
  acceptLink,
  acceptStream,
  clientSockets,
  connOf,
  linkSockets,
  liveStream,
  type StreamConn,
  streams,
  tell,
  tellEach,
} from "./connections.ts";
import type { RoomHistory } from "./room-history.ts";
import {
  finalFor,
  frameLevelDb,
  historyEntry,
  interimFor,
  type Participant,
  partnerLanguage,
  type RoomSession,
  streamConfig,
  VOICE_DB,
} from "./room-protocol.ts";
import { RoomSpeech } from "./room-speech.ts";
import type { RoomStore } from "./room-store.ts";
import { engineRefusal, speakerRefusal } from "./speaker-admission.ts";
import { LINK_TIMEOUT_MS, STREAM_FLUSH_TIMEOUT_MS, STREAM_IDLE_MS, type StreamBook } from "./stream-book.ts";

export interface RoomStreamsDeps {
  ctx: DurableObjectState;
  env: Env;
  store: RoomStore;
  book: StreamBook;
  history: RoomHistory;
  /** Sets the room's next alarm (a booked stream needs ticks). */
  schedule: () => Promise<void>;
}

/**
 * A room's engine streams, one per speaker while it talks: a loud participant's audio asks the hub for
 * an engine, which dials in; its interims go to the speaker and its finals to everyone in their own
 * language; a quiet speaker's stream is asked to end and let go once the engine says it is done.
 * The TranslationRoom hands it the sockets' events; the sockets and their attachments stay the room's.
 */
export class RoomStreams {
  readonly #deps: RoomStreamsDeps;
  /** Engine results are handled one at a time, in arrival order (each reads storage before it sends). */
  #engineQueue: Promise<void> = Promise.resolve();
  readonly #speech: RoomSpeech;

  constructor(deps: RoomStreamsDeps) {
    this.#deps = deps;
    this.#speech = new RoomSpeech({ ctx: deps.ctx, store: deps.store });
  }

  /** A participant's audio: to its running stream, or waiting for one, or (when loud) asking for one. */
  async audio(clientId: string, frame: ArrayBuffer, now: number): Promise<void> {
    const { ctx, env, book, store } = this.#deps;
    const loud = frameLevelDb(frame) > VOICE_DB;
    if (loud) book.voiced(clientId, now);
    const live = liveStream(ctx, clientId);
    if (live) return void sendRaw(live.ws, frame);
    const waiting = book.waitingFor(clientId);
    if (waiting) return waiting.audio.push(frame);
    if (!loud) return book.remember(clientId, frame);
    const session = await store.session();
    if (!session) return;
    const { roomMaxSpeakers, liveMaxStreamsPerKey } = workerConfig(env);
    const crowded = speakerRefusal(this.#speaking(), clientId, roomMaxSpeakers);
    if (crowded) return this.warn(clientId, crowded.code, crowded.message);
    const streamId = crypto.randomUUID();
    book.request(clientId, streamId, frame, now);
    const host = { object: "room" as const, conversation_id: session.conversation_id };
    const got = await assignStream(env, {
      session_id: streamId,
      host,
      mode: "stream",
      key_id: session.creator_key_id,
    }).catch((error: unknown) => ({
      ok: false as const,
      reason: "no_engine" as const,
      message: `the live hub failed: ${String(error)}`,
    }));
    if (!got.ok) {
      book.take(streamId);
      const refused = engineRefusal(got, liveMaxStreamsPerKey);
      return this.warn(clientId, refused.code, refused.message);
    }
    await this.#deps.schedule();
  }

  /**
   * An engine dialled in: for a booked stream it gets the speaker's config and then the waiting audio,
   * in one go, so no frame can overtake them (frames arriving meanwhile still join the booking).
   */
  async engineJoins(ws: WebSocket, streamId: string): Promise<void> {
    const { ctx, book, store, history } = this.#deps;
    const now = Date.now();
    const link = book.links.get(streamId);
    if (link) {
      acceptLink(ctx, ws, streamId, now);
      await history.linkJoined(ws, link.link_id);
      return;
    }
    const [session, participants] = await Promise.all([store.session(), store.participants()]);
    const booked = book.take(streamId);
    const config = booked && session ? streamConfig(participants, booked.client_id, session) : null;
    if (!booked || !config || clientSockets(ctx, booked.client_id).length === 0) {
      ws.accept();
      closeSocket(ws, RoomClose.normal, "no such stream");
      return;
    }
    acceptStream(ctx, ws, booked.client_id, streamId, now);
    sendJson(ws, config);
    for (const frame of booked.audio.take()) sendRaw(ws, frame);
  }

  /** An engine's message, handled after those that came before it. */
  async fromEngine(ws: WebSocket, conn: StreamConn, frame: string | ArrayBuffer): Promise<void> {
    // its attachment as the messages before it left it (`ended`, `no_tts`), not as it was on arrival
    const handled = this.#engineQueue.then(() => {
      const latest = connOf(ws);
      return this.#handleEngine(ws, latest?.role === "stream" ? latest : conn, frame);
    });
    this.#engineQueue = handled.catch(() => undefined);
    await handled;
  }

  /**
   * An engine's socket closed: speech asked of it fails; before its stream was asked to end, its
   * speaker hears of it.
   */
  async engineClosed(conn: StreamConn): Promise<void> {
    await this.#speech.streamGone(conn.stream_id);
    if (conn.ending_since !== null) return;
    this.warn(conn.client_id, "engine_lost", "the streaming engine disconnected; speak again to reconnect");
  }

  /**
   * The hub found the node identity of a stream's engine revoked: its speaker hears of it (speaking
   * again asks for another engine) and the stream, or translate-only link, is let go.
   */
  async drop(streamId: string): Promise<void> {
    const { ctx, book, history } = this.#deps;
    const withdrawn = "the streaming engine was withdrawn; speak again to reconnect";
    const waiting = book.take(streamId);
    if (waiting) this.warn(waiting.client_id, "engine_lost", withdrawn, true);
    for (const { ws, conn } of streams(ctx)) {
      if (conn.stream_id !== streamId) continue;
      // marked finishing first, so its close is not reported a second time
      ws.serializeAttachment({ ...conn, ending_since: Date.now() } satisfies StreamConn);
      this.warn(conn.client_id, "engine_lost", withdrawn, true);
      await this.#letGo(ws, conn);
    }
    await history.answer(streamId, null);
    for (const ws of linkSockets(ctx, streamId)) closeSocket(ws, RoomClose.normal, "engine withdrawn");
  }

  /** Sends every running stream its speaker's config again (languages or listeners changed). */
  configure(participants: readonly Participant[], session: RoomSession): void {
    for (const { ws, conn } of streams(this.#deps.ctx)) {
      const config = streamConfig(participants, conn.client_id, session);
      if (config && conn.ending_since === null) sendJson(ws, config);
    }
  }

  /** Asks the engines of a participant's streams to finish (the participant stopped or left). */
  endFor(clientId: string, now: number): void {
    for (const { ws, conn } of streams(this.#deps.ctx, clientId)) this.#endStream(ws, conn, now);
  }

  /**
   * The streams' part of the room's alarm: engines that never joined are reported, streams at
   * LIVE_MAX_SESSION_SEC (however loud their speaker) and quiet ones asked to end, streams that did not
   * finish in time let go, translate-only links that never came answered.
   */
  async tick(now: number): Promise<void> {
    const { ctx, env, book, history } = this.#deps;
    const { liveMaxSessionMs } = workerConfig(env);
    await this.#speech.tick(now);
    for (const late of book.expired(now)) {
      this.warn(late.client_id, "engine_lost", "the streaming engine did not join; speak again to retry");
    }
    for (const { ws, conn } of streams(ctx)) {
      // A speaker who never goes quiet (a tone) would otherwise hold the creator key's slot for ever.
      if (conn.ending_since === null && now - conn.joined_at >= liveMaxSessionMs) {
        this.#endStream(ws, conn, now);
        const limit = `maximum length (${liveMaxSessionMs / 1000} s)`;
        this.warn(
          conn.client_id,
          "max_duration",
          `your speech stream reached its ${limit}: it was ended; speak again to go on`,
          true,
        );
      } else if (conn.ending_since === null && now - book.lastVoiced(conn.client_id, now) > STREAM_IDLE_MS) {
        this.#endStream(ws, conn, now);
      } else if (conn.ending_since !== null && now - conn.ending_since > STREAM_FLUSH_TIMEOUT_MS) {
        await this.#letGo(ws, conn);
      } else if (conn.ended && !this.#speech.waitingOn(conn.stream_id)) {
        await this.#letGo(ws, conn); // its speech was answered, or failed in the tick above
      }
    }
    for (const link of book.links.values()) {
      if (now - link.requested_at > LINK_TIMEOUT_MS) await history.answer(link.link_id, null);
    }
  }

  /** Tells a participant something went wrong (refusals at most once per cooldown). */
  warn(clientId: string, code: RoomError["code"], message: string, always = false): void {
    if (!always && !this.#deps.book.mayWarn(clientId, Date.now())) return;
    tell(this.#deps.ctx, clientId, { type: "error", code, message });
  }

  /** Participants whose stream takes audio or is asked of the hub. */
  #speaking(): Set<string> {
    const live = streams(this.#deps.ctx).filter(({ conn }) => conn.ending_since === null);
    return new Set([...live.map(({ conn }) => conn.client_id), ...this.#deps.book.waitingSpeakers()]);
  }

  /**
   * Tells the hub the stream's engine slot (and the creator key's stream) is free, at once, before the
   * node's report, then closes it: whoever sees the close finds the slot free.
   */
  async #letGo(ws: WebSocket, conn: StreamConn): Promise<void> {
    const { env, store } = this.#deps;
    await this.#speech.streamGone(conn.stream_id);
    const session = await store.session();
    if (session) {
      await releaseStream(env, {
        session_id: conn.stream_id,
        key_id: session.creator_key_id,
        mic: false,
      }).catch((error: unknown) =>
        console.error(JSON.stringify({ room: "release failed", error: String(error) })),
      );
    }
    closeSocket(ws, RoomClose.normal, "stream over");
  }

  /** Asks the engine to finish (its last final comes, then `ended`). */
  #endStream(ws: WebSocket, conn: StreamConn, now: number): void {
    if (conn.ending_since !== null) return;
    ws.serializeAttachment({ ...conn, ending_since: now } satisfies StreamConn);
    sendJson(ws, { type: "end" } satisfies SessionToNode);
  }

  async #handleEngine(ws: WebSocket, conn: StreamConn, frame: string | ArrayBuffer): Promise<void> {
    const { ctx, store } = this.#deps;
    const parsed = typeof frame === "string" ? parseLiveMessage(NodeToSession, frame) : null;
    if (!parsed?.ok) {
      console.error(JSON.stringify({ room: "bad engine message", error: parsed?.error ?? "binary" }));
      return;
    }
    const message = parsed.value;
    if (message.type === "ended") return this.#engineEnded(ws, conn);
    if (message.type === "synthesized" || message.type === "synthesis_failed") {
      await this.#speech.answer(ws, conn, message);
      if (conn.ended && !this.#speech.waitingOn(conn.stream_id)) await this.#letGo(ws, conn);
      return;
    }
    if (message.type === "translated" || message.type === "committed") return; // rooms never commit
    if (message.type === "error") return this.warn(conn.client_id, "engine_error", message.message, true);
    const session = await store.session();
    const participants = await store.participants();
    const speaker = participants.find((p) => p.client_id === conn.client_id);
    if (!session || !speaker) return;
    const partner = partnerLanguage(participants, speaker.client_id, session).lang;
    if (message.type === "interim") {
      tell(ctx, speaker.client_id, interimFor(message, speaker, partner));
      return;
    }
    const now = Date.now();
    const entry = historyEntry(message, speaker, now);
    tellEach(ctx, (clientId) => {
      const reader = participants.find((p) => p.client_id === clientId);
      return reader ? finalFor(entry, reader, partner) : null;
    });
    store.touch(now);
    await store.addHistory(entry);
    await this.#speech.afterFinal(ws, conn, entry, participants);
  }

  /** Every final is out: the stream is let go, once the speech asked of its engine is answered. */
  async #engineEnded(ws: WebSocket, conn: StreamConn): Promise<void> {
    if (!this.#speech.waitingOn(conn.stream_id)) return this.#letGo(ws, conn);
    ws.serializeAttachment({ ...conn, ended: true } satisfies StreamConn);
  }
}
