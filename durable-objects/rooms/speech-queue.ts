/**
 * The room's syntheses waiting for their engine's answer, as a plain in-memory structure (no I/O):
 * capped, oldest dropped first, and released in `seq` order per language, so a listener never hears
 * a later final before an earlier one. Memory only: an answer whose entry was lost to a restart is
 * ignored (its listeners miss that one audio; the text already reached them).
 */
import type { SpeechContentType, SpeechFailureCode } from "../../protocol/live-speech.ts";

/** Syntheses a room keeps waiting at once (finals × languages); a new one beyond drops the oldest. */
export const SPEECH_QUEUE_MAX = 32;
/** A synthesis not answered in this time fails (tts_failed); under the stream's flush timeout (10 s). */
export const SPEECH_TIMEOUT_MS = 8_000;

export type SpeechOutcome =
  | { ok: true; content_type: SpeechContentType; audio: string; duration: number }
  | { ok: false; code: SpeechFailureCode; message: string };

/** One final in one language, asked of the engine of `stream_id`. */
export interface PendingSpeech {
  id: string;
  seq: number;
  language: string;
  text: string;
  speaker: string;
  speaker_name?: string;
  stream_id: string;
  asked_at: number;
  outcome: SpeechOutcome | null;
}

/**
 * @example
 * const queue = new SpeechQueue();
 * queue.add(pending); // [] unless the queue was full (then the oldest, failed)
 * queue.settle(pending.id, outcome);
 * for (const done of queue.release()) deliver(done);
 */
export class SpeechQueue {
  /** In `seq` order (entries are added in final order). */
  #entries: PendingSpeech[] = [];

  constructor(private readonly max = SPEECH_QUEUE_MAX) {}

  /** Adds a synthesis; returns the oldest ones dropped to stay within the cap, settled as failed. */
  add(entry: PendingSpeech): PendingSpeech[] {
    this.#entries.push(entry);
    const dropped: PendingSpeech[] = [];
    while (this.#entries.length > this.max) {
      const oldest = this.#entries.shift() as PendingSpeech;
      const message = `speech skipped: the room already waits for ${this.max} syntheses`;
      dropped.push({ ...oldest, outcome: oldest.outcome ?? { ok: false, code: "tts_failed", message } });
    }
    return dropped;
  }

  /** Records the answer for `id`; false when nothing waits for it (dropped, or lost to a restart). */
  settle(id: string, outcome: SpeechOutcome): boolean {
    const entry = this.#entries.find((e) => e.id === id && e.outcome === null);
    if (!entry) return false;
    entry.outcome = outcome;
    return true;
  }

  /** Fails every unanswered synthesis asked before `now - timeoutMs`. */
  expire(now: number, timeoutMs = SPEECH_TIMEOUT_MS): void {
    for (const entry of this.#entries) {
      if (entry.outcome === null && now - entry.asked_at >= timeoutMs) {
        entry.outcome = { ok: false, code: "tts_failed", message: "speech timed out" };
      }
    }
  }

  /** Fails every unanswered synthesis of a stream that went away. */
  failStream(streamId: string, message: string): void {
    for (const entry of this.#entries) {
      if (entry.outcome === null && entry.stream_id === streamId) {
        entry.outcome = { ok: false, code: "tts_failed", message };
      }
    }
  }

  /** Whether a synthesis asked of `streamId` is still unanswered. */
  waitingOn(streamId: string): boolean {
    return this.#entries.some((e) => e.outcome === null && e.stream_id === streamId);
  }

  /** Takes out the answered entries that no unanswered earlier one of the same language holds back. */
  release(): (PendingSpeech & { outcome: SpeechOutcome })[] {
    const held = new Set<string>();
    const out: (PendingSpeech & { outcome: SpeechOutcome })[] = [];
    this.#entries = this.#entries.filter((entry) => {
      if (entry.outcome === null || held.has(entry.language)) {
        held.add(entry.language);
        return true;
      }
      out.push(entry as PendingSpeech & { outcome: SpeechOutcome });
      return false;
    });
    return out;
  }
}
