/**
 * How many live streams one API key holds (/ws, single-device sessions, its rooms' speakers), so one
 * key cannot take every engine slot: one small object per key (named by the key id), never a list of
 * every key's streams. Each entry is a stream id → the LiveHub shard that assigned it, which is also
 * where its release goes. An entry counts while that shard's engine still holds the stream (assigned,
 * or reported running, and not known to be over): only when the key is at its limit are its own
 * entries checked with their shards, so a stream whose object died without releasing stops counting
 * once its node reports it gone.
 */
import { DurableObject } from "cloudflare:workers";
import { liveHub } from "../../platform/stubs.ts";

const PREFIX = "stream:";

interface KeyStream {
  /** The LiveHub shard whose engine serves it. */
  shard: number;
  since: number;
}

export class LiveKeyStreams extends DurableObject<Env> {
  readonly #streams = new Map<string, KeyStream>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      for (const [key, entry] of await ctx.storage.list<KeyStream>({ prefix: PREFIX })) {
        this.#streams.set(key.slice(PREFIX.length), entry);
      }
    });
  }

  /**
   * Counts `streamId` against the key on `shard`, unless the key already holds `max` streams; a stream
   * the key holds already is moved to `shard` and always allowed.
   */
  async reserve(streamId: string, shard: number, max: number): Promise<boolean> {
    if (!this.#streams.has(streamId) && this.#streams.size >= max) await this.#forgetEnded();
    // decided after the shards answered, on what the map says now (other calls ran meanwhile)
    if (!this.#streams.has(streamId) && this.#streams.size >= max) return false;
    const entry = { shard, since: this.#streams.get(streamId)?.since ?? Date.now() };
    this.#streams.set(streamId, entry);
    await this.ctx.storage.put<KeyStream>(`${PREFIX}${streamId}`, entry);
    return true;
  }

  /** The stream is over: the shard that assigned it (null when unknown or released already). */
  async release(streamId: string): Promise<number | null> {
    const entry = this.#streams.get(streamId);
    if (!entry) return null;
    this.#streams.delete(streamId);
    await this.ctx.storage.delete(`${PREFIX}${streamId}`);
    return entry.shard;
  }

  /** Drops the entries whose shard's engines no longer hold them. */
  async #forgetEnded(): Promise<void> {
    const byShard = new Map<number, string[]>();
    for (const [id, { shard }] of this.#streams) byShard.set(shard, [...(byShard.get(shard) ?? []), id]);
    const gone = (
      await Promise.all(
        [...byShard].map(async ([shard, ids]) => {
          const held = new Set(await liveHub(this.env, shard).holds(ids));
          return ids.filter((id) => !held.has(id));
        }),
      )
    ).flat();
    for (const id of gone) this.#streams.delete(id);
    if (gone.length > 0) await this.ctx.storage.delete(gone.map((id) => `${PREFIX}${id}`));
  }
}
