/**
 * What a TranslationRoom keeps in its storage: the session as created, the participants (with the
 * reconnect grace of those whose socket dropped), the recent finals, and the time of the last
 * activity, and the whole transcript (room-transcript.ts). Everything else is in socket attachments or
 * rebuilt; when the room ends all of it goes but the transcript, which goes ROOM_TRANSCRIPT_TTL_SEC later.
 */
import { HISTORY_LENGTH, type HistoryEntry, type Participant, type RoomSession } from "./room-protocol.ts";
import { RoomTranscript, type TranscriptLine } from "./room-transcript.ts";

const SESSION = "session";
const PARTICIPANTS = "participants";
const HISTORY = "history";
const ACTIVITY = "activity";
const SPEECH_SEQ = "speech_seq";

/** Activity is written at most this often (audio frames arrive ten times a second). */
export const ACTIVITY_SAVE_MS = 10_000;

export class RoomStore {
  /** The last activity this instance wrote, and a newer one not written yet. */
  #saved: number | null = null;
  #unsaved: number | null = null;
  /** Whether this instance saw activity itself (a fresh one may have missed up to ACTIVITY_SAVE_MS). */
  #observed = false;

  readonly transcript: RoomTranscript;

  constructor(private readonly storage: DurableObjectStorage) {
    this.transcript = new RoomTranscript(storage);
  }

  session(): Promise<RoomSession | undefined> {
    return this.storage.get<RoomSession>(SESSION);
  }

  async createSession(session: RoomSession): Promise<void> {
    await this.storage.put(SESSION, session);
    await this.transcript.open({
      conversation_id: session.conversation_id,
      creator_key_id: session.creator_key_id,
      created_at: session.created_at,
    });
    this.touch(session.created_at, true);
  }

  /** Stores the session changed by a host action (its lock, the removed participants). */
  async saveSession(session: RoomSession): Promise<void> {
    await this.storage.put(SESSION, session);
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

  /** Appends a final, keeping the last HISTORY_LENGTH for replay and every one in the transcript. */
  async addHistory(entry: HistoryEntry): Promise<void> {
    await this.storage.put(HISTORY, [...(await this.history()), entry].slice(-HISTORY_LENGTH));
    await this.transcript.add(entry);
  }

  /** Stores the recent finals with translations made since (the transcript gets them too). */
  async saveHistory(entries: readonly HistoryEntry[]): Promise<void> {
    await this.storage.put(HISTORY, entries);
    this.transcript.addTranslations(entries);
  }

  /** The next `seq` of a spoken final: kept in storage, so it keeps growing across restarts. */
  async nextSpeechSeq(): Promise<number> {
    const seq = ((await this.storage.get<number>(SPEECH_SEQ)) ?? 0) + 1;
    await this.storage.put(SPEECH_SEQ, seq);
    return seq;
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

  /**
   * The room is over: everything goes but the transcript, which is kept `keepMs` more (the alarm then
   * deletes it, expireTranscript); afterwards the session is unknown (404).
   */
  async clear(keepMs: number): Promise<void> {
    this.#saved = null;
    this.#unsaved = null;
    await this.storage.deleteAlarm();
    if (keepMs <= 0 || !this.transcript.hasLines()) return this.storage.deleteAll();
    await this.storage.delete([SESSION, PARTICIPANTS, HISTORY, ACTIVITY, SPEECH_SEQ]);
    const deleteAt = Date.now() + keepMs;
    await this.transcript.keepUntil(deleteAt);
    await this.storage.setAlarm(deleteAt);
  }

  /** The transcript, for its room's creator key only. */
  async transcriptFor(keyId: string): Promise<TranscriptLine[] | null> {
    const record = await this.transcript.record();
    return record?.creator_key_id === keyId ? this.transcript.lines() : null;
  }

  /** Deletes the transcript for its room's creator key; an ended room then has nothing left. */
  async deleteTranscriptFor(keyId: string): Promise<boolean> {
    const record = await this.transcript.record();
    if (record?.creator_key_id !== keyId) return false;
    await this.transcript.delete();
    if (!(await this.session())) await this.storage.deleteAll();
    return true;
  }

  /** An ended room's alarm: its transcript's time is up, so nothing of it is left. */
  async expireTranscript(now: number): Promise<void> {
    const record = await this.transcript.record();
    if (!record || (record.delete_at !== null && now >= record.delete_at)) {
      await this.storage.deleteAll();
    } else if (record.delete_at !== null) {
      await this.storage.setAlarm(record.delete_at);
    }
  }
}
