/**
 * A room's whole transcript (every final with each translation made of it), kept in the room's own
 * SQLite storage beside its short replay history, for the host to download during the room and for
 * ROOM_TRANSCRIPT_TTL_SEC after it ends (docs/api.md "Room transcripts"). When the room ends, its
 * session and participants go; this table and a small record of who may read it stay until then.
 */
import type { HistoryEntry } from "./room-protocol.ts";

/** One final as the transcript keeps it; `start`/`end` are seconds since the room was created. */
export interface TranscriptLine {
  utterance_id: string;
  /** `Speaker 1`, `Speaker 2`… in the order they first spoke. */
  speaker: string;
  language: string;
  original: string;
  translations: Record<string, string>;
  start: number;
  end: number;
}

/** Who may read a transcript, and until when (kept when the room itself is gone). */
export interface TranscriptRecord {
  conversation_id: string;
  creator_key_id: string;
  created_at: number;
  /** Unix ms after which the transcript is deleted; null while the room is open. */
  delete_at: number | null;
}

const RECORD = "transcript-record";

export class RoomTranscript {
  constructor(private readonly storage: DurableObjectStorage) {
    storage.sql.exec(`CREATE TABLE IF NOT EXISTS transcript (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      utterance_id TEXT NOT NULL UNIQUE,
      speaker TEXT NOT NULL,
      language TEXT NOT NULL,
      original TEXT NOT NULL,
      translations TEXT NOT NULL,
      start_sec REAL NOT NULL,
      end_sec REAL NOT NULL
    )`);
    storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS transcript_speakers (client_id TEXT PRIMARY KEY, n INTEGER NOT NULL)",
    );
  }

  record(): Promise<TranscriptRecord | undefined> {
    return this.storage.get<TranscriptRecord>(RECORD);
  }

  /** Opens the transcript of a new room. */
  async open(record: Omit<TranscriptRecord, "delete_at">): Promise<void> {
    await this.storage.put(RECORD, { ...record, delete_at: null } satisfies TranscriptRecord);
  }

  /** Adds a final (its times from the moment it arrived, relative to the room's start). */
  async add(entry: HistoryEntry): Promise<void> {
    const record = await this.record();
    if (!record) return;
    const end = Math.max(0, (entry.at - record.created_at) / 1000);
    const start = Math.max(0, end - Math.max(0, entry.end - entry.start));
    this.storage.sql.exec(
      `INSERT OR IGNORE INTO transcript
         (utterance_id, speaker, language, original, translations, start_sec, end_sec)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      entry.utterance_id,
      this.#speakerLabel(entry.speaker),
      entry.language,
      entry.original,
      JSON.stringify(entry.translations),
      start,
      end,
    );
  }

  /** Stores translations made later (for a participant who joined in another language). */
  addTranslations(entries: readonly HistoryEntry[]): void {
    for (const entry of entries) {
      this.storage.sql.exec(
        "UPDATE transcript SET translations = ? WHERE utterance_id = ?",
        JSON.stringify(entry.translations),
        entry.utterance_id,
      );
    }
  }

  hasLines(): boolean {
    return this.storage.sql.exec("SELECT 1 FROM transcript LIMIT 1").toArray().length > 0;
  }

  lines(): TranscriptLine[] {
    return this.storage.sql
      .exec<{
        utterance_id: string;
        speaker: string;
        language: string;
        original: string;
        translations: string;
        start_sec: number;
        end_sec: number;
      }>("SELECT * FROM transcript ORDER BY seq")
      .toArray()
      .map((row) => ({
        utterance_id: row.utterance_id,
        speaker: row.speaker,
        language: row.language,
        original: row.original,
        translations: JSON.parse(row.translations) as Record<string, string>,
        start: row.start_sec,
        end: row.end_sec,
      }));
  }

  /** The room ended: the transcript stays until `deleteAt`. */
  async keepUntil(deleteAt: number): Promise<void> {
    const record = await this.record();
    if (record) await this.storage.put(RECORD, { ...record, delete_at: deleteAt });
  }

  /** Deletes the transcript (on request, or when its time is up). */
  async delete(): Promise<void> {
    this.storage.sql.exec("DELETE FROM transcript");
    this.storage.sql.exec("DELETE FROM transcript_speakers");
    await this.storage.delete(RECORD);
  }

  /** Speakers are numbered in the order they first spoke; client ids stay inside the room. */
  #speakerLabel(clientId: string): string {
    const sql = this.storage.sql;
    const known = sql
      .exec<{ n: number }>("SELECT n FROM transcript_speakers WHERE client_id = ?", clientId)
      .toArray()[0];
    if (known) return `Speaker ${known.n}`;
    const n = sql.exec<{ n: number }>("SELECT COUNT(*) + 1 AS n FROM transcript_speakers").one().n;
    sql.exec("INSERT INTO transcript_speakers (client_id, n) VALUES (?, ?)", clientId, n);
    return `Speaker ${n}`;
  }
}
