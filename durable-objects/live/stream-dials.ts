/**
 * Where each assigned stream is served and which node identity may serve it, kept in the storage of the
 * LiveHub shard that assigned it (its node identity's shard) as stream id → dial. The node is sent only the stream's id and a fresh random secret (the
 * path it dials, liveStreamPath); the Worker asks the hub where that leads, and the hub answers only
 * the identity it assigned the stream to, with the right secret, once. The object behind it (a
 * LiveSession, or a TranslationRoom named by its conversation id) is never named to the node. A dial
 * is kept after use, so the hub can tell the object to drop the engine of an identity revoked later.
 */
import { liveStreamPath } from "../../protocol/live.ts";

const PREFIX = "dial:";
/** 256 random bits, base64url. */
const SECRET_BYTES = 32;

/** The object a stream lives in: its LiveSession (named by the stream id), or a room. */
export type StreamHost = { object: "session" } | { object: "room"; conversation_id: string };

export interface StreamDial {
  host: StreamHost;
  identity_id: string;
  /** SHA-256 of the secret, hex. */
  secret_hash: string;
  booked_at: number;
  dialled: boolean;
}

/** A stream dialled by its node: the stream and the object it lives in. */
export interface DialledStream {
  stream_id: string;
  host: StreamHost;
}

async function sha256(text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
}

const hex = (bytes: ArrayBuffer) =>
  [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");

function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(SECRET_BYTES));
  return btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

/**
 * @example
 * const dials = new StreamDials(ctx.storage);
 * const path = await dials.book("single_…", { object: "session" }, "node_1", Date.now());
 * const stream = await dials.take("single_…", secret, "node_1"); // null for anyone else
 */
export class StreamDials {
  constructor(private readonly storage: DurableObjectStorage) {}

  /** Books a stream for `identityId`; returns the path (with its secret) to send that node. */
  async book(streamId: string, host: StreamHost, identityId: string, now: number): Promise<string> {
    const secret = newSecret();
    await this.storage.put<StreamDial>(`${PREFIX}${streamId}`, {
      host,
      identity_id: identityId,
      secret_hash: hex(await sha256(secret)),
      booked_at: now,
      dialled: false,
    });
    return liveStreamPath(streamId, secret);
  }

  /**
   * The stream a node dials, once, and only for the identity it was booked for with its secret;
   * null for anything else (which leaves the booking for its node).
   */
  async take(streamId: string, secret: string, identityId: string): Promise<DialledStream | null> {
    const key = `${PREFIX}${streamId}`;
    const dial = await this.storage.get<StreamDial>(key);
    if (!dial || dial.dialled || dial.identity_id !== identityId) return null;
    const given = new Uint8Array(await sha256(secret));
    const booked = Uint8Array.from(dial.secret_hash.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
    if (!crypto.subtle.timingSafeEqual(given, booked)) return null;
    await this.storage.put<StreamDial>(key, { ...dial, dialled: true });
    return { stream_id: streamId, host: dial.host };
  }

  /** The streams booked for any of `identityIds`, taken out of the book. */
  async takeAllOf(identityIds: ReadonlySet<string>): Promise<DialledStream[]> {
    const taken: DialledStream[] = [];
    for (const [key, dial] of await this.storage.list<StreamDial>({ prefix: PREFIX })) {
      if (identityIds.has(dial.identity_id))
        taken.push({ stream_id: key.slice(PREFIX.length), host: dial.host });
    }
    await this.storage.delete(taken.map((stream) => `${PREFIX}${stream.stream_id}`));
    return taken;
  }

  /** The stream is over. Idempotent. */
  async remove(streamId: string): Promise<void> {
    await this.storage.delete(`${PREFIX}${streamId}`);
  }

  /**
   * Forgets bookings older than `maxAgeMs` that no engine holds any more (translate-only links, which
   * nobody releases, and streams whose object died without releasing).
   */
  async sweep(engineHolds: (streamId: string) => boolean, now: number, maxAgeMs: number): Promise<void> {
    const gone: string[] = [];
    for (const [key, dial] of await this.storage.list<StreamDial>({ prefix: PREFIX })) {
      if (now - dial.booked_at > maxAgeMs && !engineHolds(key.slice(PREFIX.length))) gone.push(key);
    }
    if (gone.length > 0) await this.storage.delete(gone);
  }
}
