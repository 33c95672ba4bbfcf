/**
 * How many live streams each API key holds (/ws and single-device sessions), so one key cannot take
 * every engine slot. Kept in the hub's storage as session id → key id; an entry counts while an engine
 * still holds its stream (reported running or assigned since, not known to be over), so a session
 * whose object died without releasing stops counting once its node reports it gone.
 */

const PREFIX = "key-stream:";

interface KeyStream {
  key_id: string;
  since: number;
}

/**
 * @example
 * const keys = new KeyStreams(ctx.storage);
 * if ((await keys.held("key_1", (id) => used.has(id))) >= 2) refuse();
 * await keys.add("single_…", "key_1", Date.now());
 */
export class KeyStreams {
  constructor(private readonly storage: DurableObjectStorage) {}

  /** Streams `keyId` holds now; entries no engine holds any more are forgotten on the way. */
  async held(keyId: string, engineHolds: (sessionId: string) => boolean): Promise<number> {
    const entries = await this.storage.list<KeyStream>({ prefix: PREFIX });
    const gone: string[] = [];
    let held = 0;
    for (const [key, entry] of entries) {
      if (!engineHolds(key.slice(PREFIX.length))) gone.push(key);
      else if (entry.key_id === keyId) held++;
    }
    if (gone.length > 0) await this.storage.delete(gone);
    return held;
  }

  async add(sessionId: string, keyId: string, now: number): Promise<void> {
    await this.storage.put<KeyStream>(`${PREFIX}${sessionId}`, { key_id: keyId, since: now });
  }

  /** The stream is over. Idempotent. */
  async remove(sessionId: string): Promise<void> {
    await this.storage.delete(`${PREFIX}${sessionId}`);
  }
}
