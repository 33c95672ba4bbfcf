/**
 * Spoken translations in a room. After a final goes out, the room asks the engine that made it (the
 * node serving the speaker's stream, which has the TTS) to speak it once per language that a
 * connected participant with speak on reads, and hands each answer, as `translation_audio`, to those
 * participants only. The decisions (which languages, what text, who hears) are speech-plan.ts; the
 * waiting syntheses are a SpeechQueue (capped, drop-oldest, released in seq order per language).
 */
import type {
  SynthesisFailedMessage,
  SynthesizedMessage,
  SynthesizeRequest,
} from "../../protocol/live-speech.ts";
import type { RoomError, TranslationAudio } from "../../protocol/rooms.ts";
import { sendJson, sendRaw } from "../live/sockets.ts";
import { clientSockets, type StreamConn, tell } from "./connections.ts";
import type { HistoryEntry, Participant } from "./room-protocol.ts";
import type { RoomStore } from "./room-store.ts";
import { hearers, speechAsks } from "./speech-plan.ts";
import { type PendingSpeech, type SpeechOutcome, SpeechQueue } from "./speech-queue.ts";

export interface RoomSpeechDeps {
  ctx: DurableObjectState;
  store: RoomStore;
}

/**
 * @example
 * await speech.afterFinal(ws, conn, entry, participants); // asks the engine, once per language
 * await speech.answer(ws, conn, synthesized); // hands the audio to whoever has speak on
 */
export class RoomSpeech {
  readonly #deps: RoomSpeechDeps;
  readonly #queue = new SpeechQueue();

  constructor(deps: RoomSpeechDeps) {
    this.#deps = deps;
  }

  /** Asks the final's engine to speak it in each language a participant with speak on reads. */
  async afterFinal(
    ws: WebSocket,
    conn: StreamConn,
    entry: HistoryEntry,
    participants: readonly Participant[],
  ): Promise<void> {
    if (conn.no_tts) return;
    const asks = speechAsks(entry, participants);
    if (asks.length === 0) return;
    const seq = await this.#deps.store.nextSpeechSeq();
    const now = Date.now();
    for (const ask of asks) {
      const pending: PendingSpeech = {
        id: `${seq}-${ask.language}`,
        seq,
        language: ask.language,
        text: ask.text,
        speaker: entry.speaker,
        ...(entry.speaker_name && { speaker_name: entry.speaker_name }),
        stream_id: conn.stream_id,
        asked_at: now,
        outcome: ask.refused ? { ok: false, code: "tts_failed", message: ask.refused } : null,
      };
      const dropped = this.#queue.add(pending);
      if (dropped.length > 0) await this.#deliver(dropped);
      if (!ask.refused) {
        const request: SynthesizeRequest = {
          type: "synthesize",
          id: pending.id,
          text: ask.text,
          language: ask.language,
        };
        sendJson(ws, request);
      }
    }
    await this.#deliver(this.#queue.release());
  }

  /**
   * An engine's answer. A first `tts_unavailable` from a stream marks it (its later finals are not
   * asked) and tells every participant with speak on, once.
   */
  async answer(
    ws: WebSocket,
    conn: StreamConn,
    message: SynthesizedMessage | SynthesisFailedMessage,
  ): Promise<void> {
    const outcome: SpeechOutcome =
      message.type === "synthesized"
        ? { ok: true, content_type: message.content_type, audio: message.audio, duration: message.duration }
        : { ok: false, code: message.code, message: message.message };
    if (!this.#queue.settle(message.id, outcome)) return;
    if (!outcome.ok && outcome.code === "tts_unavailable" && !conn.no_tts) {
      ws.serializeAttachment({ ...conn, no_tts: true } satisfies StreamConn);
      const participants = await this.#deps.store.participants();
      for (const p of participants) {
        if (p.speak && p.client_id !== conn.client_id)
          this.#warn(p.client_id, "tts_unavailable", outcome.message);
      }
    }
    await this.#deliver(this.#queue.release());
  }

  /** Whether speech asked of this stream is unanswered (its let-go waits for it). */
  waitingOn(streamId: string): boolean {
    return this.#queue.waitingOn(streamId);
  }

  /** The alarm's part: syntheses unanswered for SPEECH_TIMEOUT_MS fail. */
  async tick(now: number): Promise<void> {
    this.#queue.expire(now);
    await this.#deliver(this.#queue.release());
  }

  /** A stream went away: what was asked of it fails. */
  async streamGone(streamId: string): Promise<void> {
    this.#queue.failStream(streamId, "the speaker's engine went away before speaking");
    await this.#deliver(this.#queue.release());
  }

  /**
   * Hands each answered synthesis to the participants with speak on in its language now (one who
   * switched off since hears nothing); a failure is told to them as `tts_failed`.
   */
  async #deliver(done: readonly PendingSpeech[]): Promise<void> {
    if (done.length === 0) return;
    const participants = await this.#deps.store.participants();
    for (const entry of done) {
      const outcome = entry.outcome;
      if (!outcome || (!outcome.ok && outcome.code === "tts_unavailable")) continue; // told once, above
      const to = hearers(participants, entry.language, entry.speaker);
      if (!outcome.ok) {
        for (const clientId of to) this.#warn(clientId, "tts_failed", outcome.message);
        continue;
      }
      const audio: TranslationAudio = {
        type: "translation_audio",
        seq: entry.seq,
        speaker: entry.speaker,
        ...(entry.speaker_name && { speaker_name: entry.speaker_name }),
        language: entry.language,
        text: entry.text,
        content_type: outcome.content_type,
        duration: outcome.duration,
        audio: outcome.audio,
      };
      const frame = JSON.stringify(audio); // once, however many hear it
      for (const clientId of to) {
        for (const ws of clientSockets(this.#deps.ctx, clientId)) sendRaw(ws, frame);
      }
    }
  }

  #warn(clientId: string, code: RoomError["code"], message: string): void {
    tell(this.#deps.ctx, clientId, { type: "error", code, message });
  }
}
