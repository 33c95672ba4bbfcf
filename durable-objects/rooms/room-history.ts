/**
 * A TranslationRoom's recent finals for participants who (re)join: replayed in the reader's language.
 * Translations the room does not have yet are asked of an engine over a translate-only link (the hub
 * assigns it like a stream, without taking a slot), once per language however many readers wait.
 */
import {
  NodeToSession,
  parseLiveMessage,
  type SessionToNode,
  type TranslatedBatch,
} from "../../protocol/live.ts";
import { RoomClose } from "../../protocol/rooms.ts";
import type { AssignAsk, AssignResult } from "../live/live-streams.ts";
import { closeSocket, sendJson } from "../live/sockets.ts";
import { linkSockets, tell } from "./connections.ts";
import {
  finalFor,
  type HistoryEntry,
  type Participant,
  partnerLanguage,
  type RoomSession,
} from "./room-protocol.ts";
import type { RoomStore } from "./room-store.ts";
import type { StreamBook } from "./stream-book.ts";

/** What the history needs of its room. */
export interface HistoryRoom {
  ctx: DurableObjectState;
  store: RoomStore;
  book: StreamBook;
  /** Hands a translate-only link to an engine (live-streams.ts `assignStream`). */
  assign: (ask: AssignAsk) => Promise<AssignResult>;
}

export class RoomHistory {
  constructor(private readonly room: HistoryRoom) {}

  /** Sends `me` the room's recent finals in its language, after translating what is missing. */
  async replay(me: Participant, participants: readonly Participant[], session: RoomSession): Promise<void> {
    const { store, book } = this.room;
    const entries = await store.history();
    if (entries.length === 0) return;
    const missing = entries.some(
      (e) => e.language !== me.language && e.translations[me.language] === undefined,
    );
    if (!missing) return this.#send(me.client_id, entries, participants, session);
    for (const link of book.links.values()) {
      if (link.to === me.language) return void link.readers.push(me.client_id);
    }
    const linkId = crypto.randomUUID();
    book.links.set(linkId, {
      link_id: linkId,
      to: me.language,
      readers: [me.client_id],
      requested_at: Date.now(),
    });
    const host = { object: "room" as const, conversation_id: session.conversation_id };
    const got = await this.room
      .assign({ session_id: linkId, host, mode: "translate" })
      .catch(() => ({ ok: false as const }));
    if (!got.ok) await this.answer(linkId, null);
  }

  /** The engine dialled in on a link: it gets the texts to translate. */
  async linkJoined(ws: WebSocket, linkId: string): Promise<void> {
    const link = this.room.book.links.get(linkId);
    if (!link) return;
    const items = (await this.room.store.history())
      .filter((e) => e.language !== link.to && e.translations[link.to] === undefined)
      .map((e) => ({ id: e.utterance_id, text: e.original, from: e.language }));
    sendJson(ws, { type: "translate", request_id: linkId, to: link.to, items } satisfies SessionToNode);
  }

  async fromLink(ws: WebSocket, linkId: string, frame: string): Promise<void> {
    const parsed = parseLiveMessage(NodeToSession, frame);
    if (parsed.ok && parsed.value.type === "translated") await this.answer(linkId, parsed.value);
    closeSocket(ws, RoomClose.normal, "translated");
  }

  /**
   * Stores what a link translated and sends the waiting readers the history; with no answer (no
   * engine, a failure, a timeout) they get it untranslated, flagged.
   */
  async answer(linkId: string, answer: TranslatedBatch | null): Promise<void> {
    const { ctx, store, book } = this.room;
    const link = book.links.get(linkId);
    if (!link) return;
    book.links.delete(linkId);
    const session = await store.session();
    if (!session) return;
    const texts = new Map(
      (answer?.items ?? []).flatMap((i) => (i.text === null ? [] : [[i.id, i.text] as const])),
    );
    const entries = (await store.history()).map((e) => {
      const text = texts.get(e.utterance_id);
      return text === undefined ? e : { ...e, translations: { ...e.translations, [link.to]: text } };
    });
    if (texts.size > 0) await store.saveHistory(entries);
    const participants = await store.participants();
    for (const reader of link.readers) this.#send(reader, entries, participants, session);
    for (const ws of linkSockets(ctx, linkId)) closeSocket(ws, RoomClose.normal, "translated");
  }

  #send(
    clientId: string,
    entries: readonly HistoryEntry[],
    participants: readonly Participant[],
    session: RoomSession,
  ): void {
    const reader = participants.find((p) => p.client_id === clientId);
    if (!reader) return;
    for (const entry of entries) {
      const partner = partnerLanguage(participants, entry.speaker, session).lang;
      tell(this.room.ctx, clientId, finalFor(entry, reader, partner, true));
    }
  }
}
