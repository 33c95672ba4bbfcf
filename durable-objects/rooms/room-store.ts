/**
 * What a TranslationRoom keeps in its storage: the session as created, the participants (with the
 * reconnect grace of those whose socket dropped), the recent finals, and the time of the last
 * activity. Everything else is in socket attachments or rebuilt; the whole of it goes when the room
 * expires.
 */
import { HISTORY_LENGTH, type HistoryEntry, type Participant, type RoomSession } from "./room-protocol.ts";

const SESSION = "session";
const PARTICIPANTS = "participants";
const HISTORY = "history";
const ACTIVITY = "activity";

/** Activity is written at most this often (audio frames arrive ten times a second). */
export const ACTIVITY_SAVE_MS = 10_000;

export class RoomStore {
  /** The last activity this instance wrote, and a newer one not written yet. */
  #saved: number | null = null;
  #unsaved: number | null = null;
  /** Whether this instance saw activity itself (a fresh one may have missed up to ACTIVITY_SAVE_MS). */
  #observed = false;

  constructor(private readonly storage: DurableObjectStorage) {}

  session(): Promise<RoomSession | undefined> {
    return this.storage.get<RoomSession>(SESSION);
  }

  async createSession(session: RoomSession): Promise<void> {
    await this.storage.put(SESSION, session);
    this.touch(session.created_at, true);
  }

  async participants(): Promise<Participant[]> {
    return Object.values((await this.storage.get<Record<string, Participant>>(PARTICIPANTS)) ?? {});
  }

  async saveParticipants(participants: readonly Participant[]): Promise<void> {
    await this.storage.put(PARTICIPANTS, Object.fromEntries(participants.map((p) => [p.client_id, p])));
  }

  async history(): Promise<HistoryEntry[]> {
    return (await this.storage.get<HistoryEntry[]>(HISTORY)) ?? [];
  }

  /** Appends a final, keeping the last HISTORY_LENGTH. */
  async addHistory(entry: HistoryEntry): Promise<void> {
    await this.saveHistory([...(await this.history()), entry].slice(-HISTORY_LENGTH));
  }

  async saveHistory(entries: readonly HistoryEntry[]): Promise<void> {
    await this.storage.put(HISTORY, entries);
  }

  /** Records activity at `now`; writes it only every ACTIVITY_SAVE_MS unless `force`d. */
  touch(now: number, force = false): void {
    this.#observed = true;
    if (force || this.#saved === null || now - this.#saved >= ACTIVITY_SAVE_MS) {
      this.#saved = now;
      this.#unsaved = null;
      void this.storage.put(ACTIVITY, now);
    } else {
      this.#unsaved = now;
    }
  }

  /**
   * When the room expires: `ttlMs` after the last activity. An instance that woke without seeing any
   * activity adds the write interval, so a room never expires early because of an unwritten frame.
   */
  async expiresAt(ttlMs: number): Promise<number> {
    const saved = (await this.storage.get<number>(ACTIVITY)) ?? 0;
    const last = Math.max(saved, this.#unsaved ?? 0);
    return last + ttlMs + (this.#observed ? 0 : ACTIVITY_SAVE_MS);
  }

  /** Deletes everything: afterwards the session is unknown (404). */
  async clear(): Promise<void> {
    this.#saved = null;
    this.#unsaved = null;
    await this.storage.deleteAlarm();
    await this.storage.deleteAll();
  }
}
