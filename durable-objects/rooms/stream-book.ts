/**
 * The TranslationRoom's short-lived, in-memory bookkeeping of engine links: streams asked of the hub
 * whose engine has not dialled in yet (with the audio waiting for it), when each speaker last made a
 * sound, a little audio from before each speaker's first loud frame, and translate-only links. It is
 * fine to lose on hibernation: a waiting engine then finds no stream and is turned away, and the next
 * loud frame asks again.
 */
import { PendingAudio } from "../live/pending-audio.ts";
import { NoticeCooldown } from "../notice-cooldown.ts";

/** An engine must dial in within this long after the hub assigned it. */
export const STREAM_JOIN_TIMEOUT_MS = 3_000;
/** A speaker silent this long gives its engine stream back (its last final is flushed first). */
export const STREAM_IDLE_MS = 3_000;
/** A finishing stream that has not said `ended` by then is closed anyway. */
export const STREAM_FLUSH_TIMEOUT_MS = 10_000;
/** A translate-only link must answer within this long; after it the history goes out untranslated. */
export const LINK_TIMEOUT_MS = 8_000;
/** Frames kept from before a speaker's first loud frame (100 ms each from a browser). */
const PREROLL_FRAMES = 3;

export interface WaitingStream {
  stream_id: string;
  client_id: string;
  requested_at: number;
  audio: PendingAudio;
}

export interface PendingLink {
  link_id: string;
  /** The language the history is translated into, and who waits for it. */
  to: string;
  readers: string[];
  requested_at: number;
}

export class StreamBook {
  readonly #waiting = new Map<string, WaitingStream>();
  readonly #lastVoiced = new Map<string, number>();
  readonly #preroll = new Map<string, ArrayBuffer[]>();
  /** A speaker is told at most once per cooldown that no engine is free. */
  readonly #refusals = new NoticeCooldown();
  readonly links = new Map<string, PendingLink>();

  /** Books a stream for `clientId`, holding its pre-roll and `first` frame until the engine is in. */
  request(clientId: string, streamId: string, first: ArrayBuffer, now: number): WaitingStream {
    const audio = new PendingAudio();
    for (const frame of this.#preroll.get(clientId) ?? []) audio.push(frame);
    audio.push(first);
    this.#preroll.delete(clientId);
    const waiting = { stream_id: streamId, client_id: clientId, requested_at: now, audio };
    this.#waiting.set(streamId, waiting);
    return waiting;
  }

  /** Speakers whose stream is asked of the hub and not in yet. */
  waitingSpeakers(): string[] {
    return [...this.#waiting.values()].map((waiting) => waiting.client_id);
  }

  waitingFor(clientId: string): WaitingStream | null {
    for (const waiting of this.#waiting.values()) if (waiting.client_id === clientId) return waiting;
    return null;
  }

  /** Takes the booking of a stream whose engine dialled in (null: unknown or given up). */
  take(streamId: string): WaitingStream | null {
    const waiting = this.#waiting.get(streamId) ?? null;
    this.#waiting.delete(streamId);
    return waiting;
  }

  /** Bookings whose engine did not dial in in time; they are removed. */
  expired(now: number): WaitingStream[] {
    const late = [...this.#waiting.values()].filter((w) => now - w.requested_at > STREAM_JOIN_TIMEOUT_MS);
    for (const w of late) this.#waiting.delete(w.stream_id);
    return late;
  }

  get busy(): boolean {
    return this.#waiting.size > 0 || this.links.size > 0;
  }

  /** Notes that `clientId` made a sound. */
  voiced(clientId: string, now: number): void {
    this.#lastVoiced.set(clientId, now);
  }

  /** Keeps a quiet frame while no stream runs: the pre-roll of the next one. */
  remember(clientId: string, frame: ArrayBuffer): void {
    const preroll = this.#preroll.get(clientId) ?? [];
    preroll.push(frame);
    if (preroll.length > PREROLL_FRAMES) preroll.shift();
    this.#preroll.set(clientId, preroll);
  }

  /** When `clientId` last made a sound; unknown after hibernation, so a stream then counts from `now`. */
  lastVoiced(clientId: string, now: number): number {
    const at = this.#lastVoiced.get(clientId);
    if (at === undefined) this.#lastVoiced.set(clientId, now);
    return at ?? now;
  }

  /** True when `clientId` may be told about a refusal again (not more than once per cooldown). */
  mayWarn(clientId: string, now: number): boolean {
    return this.#refusals.mayTell(clientId, now);
  }

  forget(clientId: string): void {
    this.#lastVoiced.delete(clientId);
    this.#preroll.delete(clientId);
    this.#refusals.forget(clientId);
    for (const [id, waiting] of this.#waiting) if (waiting.client_id === clientId) this.#waiting.delete(id);
  }
}
