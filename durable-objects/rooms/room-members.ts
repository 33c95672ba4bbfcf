import { workerConfig } from "../../platform/config.ts";
import { LIVE_FORMAT, LIVE_SAMPLE_RATE, RoomClose } from "../../protocol/rooms.ts";
import { closeSocket, sendJson } from "../live/sockets.ts";
import { acceptClient, clientSockets, markListener, tellEach } from "./connections.ts";
import { type ControlDecision, wasRemoved } from "./host-controls.ts";
import type { RoomHistory } from "./room-history.ts";
import { newResumeToken, placeFor, resumeHash } from "./room-identity.ts";
import { readParticipantAsk } from "./room-join.ts";
import {
  type Participant,
  participantList,
  partnerLanguage,
  publicParticipant,
  type RoomSession,
} from "./room-protocol.ts";
import type { RoomStore } from "./room-store.ts";
import type { RoomStreams } from "./room-streams.ts";
import type { StreamBook } from "./stream-book.ts";

export interface RoomMembersDeps {
  ctx: DurableObjectState;
  env: Env;
  store: RoomStore;
  book: StreamBook;
  streams: RoomStreams;
  history: RoomHistory;
  /** Sets the room's next alarm (a reconnect grace to run out). */
  schedule: () => Promise<void>;
}

/**
 * A room's participants: joins (checked, placed, welcomed with everyone in the room), drops and their
 * reconnect grace, leaves, who each one's partner is, and the host's actions on them. The
 * TranslationRoom hands it the sockets' events; the sockets and their attachments stay the room's.
 */
export class RoomMembers {
  readonly #deps: RoomMembersDeps;

  constructor(deps: RoomMembersDeps) {
    this.#deps = deps;
  }

  get #ctx(): DurableObjectState {
    return this.#deps.ctx;
  }

  get #maxParticipants(): number {
    return workerConfig(this.#deps.env).roomMaxParticipants;
  }

  async join(ws: WebSocket, params: URLSearchParams): Promise<void> {
    const session = await this.#deps.store.session();
    const refuse = (code: number, reason: string) => {
      ws.accept();
      closeSocket(ws, code, reason);
    };
    if (!session) return refuse(RoomClose.notFound, "conversation not found or expired");
    const ask = readParticipantAsk(params);
    if ("code" in ask) return refuse(ask.code, ask.reason);
    const { language, asked, resume, role, name, speak } = ask;
    // hashing happens before participants are read, so no other event interleaves between read and write
    const [presented, fresh] = await Promise.all([
      resume === null ? null : resumeHash(resume),
      newResumeToken(),
    ]);
    const now = Date.now();
    const participants = await this.reconcile(now);
    if (wasRemoved(session, presented))
      return refuse(RoomClose.removed, "you were removed from this room by its host");
    const { known, client_id: clientId } = placeFor(participants, { asked, resumeHash: presented });
    if (!known && session.locked) return refuse(RoomClose.locked, "the host has locked the room");
    if (!known && participants.length >= this.#maxParticipants) {
      return refuse(RoomClose.full, `the room is full (${this.#maxParticipants} participants)`);
    }
    for (const older of clientSockets(this.#ctx, clientId)) {
      closeSocket(
        older,
        RoomClose.replaced,
        "replaced by a newer connection with this participant's resume token",
      );
    }
    // a place taken back keeps its role (the host may have changed it) and, unless renamed, its name
    // and its spoken translations setting unless the reconnect sets it
    const me: Participant = known
      ? {
          ...known,
          language,
          left_at: null,
          resume_hash: fresh.hash,
          name: name ?? known.name ?? null,
          speak: speak ?? known.speak ?? false,
        }
      : {
          client_id: clientId,
          language,
          joined_at: now,
          left_at: null,
          resume_hash: fresh.hash,
          name,
          role,
          speak: speak ?? false,
        };
    const everyone = [...participants.filter((p) => p.client_id !== clientId), me];
    await this.#deps.store.saveParticipants(everyone);
    const pub = publicParticipant(me);
    acceptClient(this.#ctx, ws, clientId, now, pub.role === "listener");
    this.#deps.store.touch(now, true);
    sendJson(ws, {
      type: "welcome",
      conversation_id: session.conversation_id,
      client_id: clientId,
      resume_token: fresh.token,
      language,
      client_count: everyone.length,
      max_participants: this.#maxParticipants,
      role: pub.role,
      name: pub.name,
      participants: participantList(everyone),
      locked: session.locked ?? false,
      speak: me.speak ?? false,
      sample_rate: LIVE_SAMPLE_RATE,
      format: LIVE_FORMAT,
    });
    const changed = !known || known.language !== language;
    if (!known) {
      tellEach(this.#ctx, () => ({
        type: "user_joined",
        client_count: everyone.length,
        client_id: clientId,
        language,
        name: pub.name,
        role: pub.role,
      }));
    }
    this.#announcePartners(everyone, session, changed ? null : clientId);
    if (changed) this.#deps.streams.configure(everyone, session);
    await this.#deps.history.replay(me, everyone, session);
    await this.#deps.schedule();
  }

  /**
   * Participants that look connected but have no socket (the object was reset and never heard their
   * close) start their reconnect grace now.
   */
  async reconcile(now: number): Promise<Participant[]> {
    const participants = await this.#deps.store.participants();
    const ghosts = participants.filter(
      (p) => p.left_at === null && clientSockets(this.#ctx, p.client_id).length === 0,
    );
    if (ghosts.length === 0) return participants;
    const fixed = participants.map((p) => (ghosts.includes(p) ? { ...p, left_at: now } : p));
    await this.#deps.store.saveParticipants(fixed);
    return fixed;
  }

  /** Spoken translations on or off for a participant (its `speak` message); nobody else is told. */
  async setSpeak(clientId: string, enabled: boolean): Promise<void> {
    const participants = await this.#deps.store.participants();
    if (!participants.some((p) => p.client_id === clientId && (p.speak ?? false) !== enabled)) return;
    await this.#deps.store.saveParticipants(
      participants.map((p) => (p.client_id === clientId ? { ...p, speak: enabled } : p)),
    );
  }

  /** A participant's socket closed: a normal close leaves now, a drop keeps the place for the grace. */
  async dropped(clientId: string, leaving: boolean): Promise<void> {
    this.#deps.streams.endFor(clientId, Date.now());
    this.#deps.book.forget(clientId);
    if (leaving) return this.leave([clientId]);
    const participants = await this.#deps.store.participants();
    const now = Date.now();
    await this.#deps.store.saveParticipants(
      participants.map((p) => (p.client_id === clientId ? { ...p, left_at: now } : p)),
    );
    await this.#deps.schedule();
  }

  async leave(clientIds: readonly string[]): Promise<void> {
    const session = await this.#deps.store.session();
    if (!session) return;
    const left = new Set(clientIds);
    const remaining = (await this.#deps.store.participants()).filter((p) => !left.has(p.client_id));
    await this.#deps.store.saveParticipants(remaining);
    for (const clientId of left) {
      for (const ws of clientSockets(this.#ctx, clientId)) closeSocket(ws, RoomClose.normal, "left the room");
      tellEach(this.#ctx, () => ({ type: "user_left", client_count: remaining.length, client_id: clientId }));
    }
    this.#announcePartners(remaining, session, null);
    this.#deps.streams.configure(remaining, session);
  }

  /** Tells participants their partner language (`only`: just that one). */
  #announcePartners(participants: readonly Participant[], session: RoomSession, only: string | null): void {
    tellEach(this.#ctx, (clientId) => {
      if (only !== null && clientId !== only) return null;
      return { type: "partner_language", ...partnerLanguage(participants, clientId, session) };
    });
  }

  /**
   * Carries out a host action other than `end` (host-controls.ts decided it; the session is saved):
   * a removed participant's sockets close with 4403 and it leaves; a role change reaches its sockets
   * and stream, and everyone gets the new list.
   */
  async applyControl(decided: ControlDecision): Promise<void> {
    const { target } = decided;
    if (!target || !decided.system) return;
    if (decided.system.event === "removed") {
      for (const ws of clientSockets(this.#ctx, target.client_id))
        closeSocket(ws, RoomClose.removed, "removed from the room by its host");
      this.#stopSpeaking(target.client_id);
      return this.leave([target.client_id]);
    }
    await this.#deps.store.saveParticipants(decided.participants);
    markListener(this.#ctx, target.client_id, target.role === "listener");
    if (target.role === "listener") this.#stopSpeaking(target.client_id);
    const participants = participantList(decided.participants);
    tellEach(this.#ctx, () => ({ type: "participants", participants }));
  }

  /** Ends a participant's streams and drops a stream still asked of the hub (its engine finds none). */
  #stopSpeaking(clientId: string): void {
    this.#deps.streams.endFor(clientId, Date.now());
    this.#deps.book.forget(clientId);
  }
}
