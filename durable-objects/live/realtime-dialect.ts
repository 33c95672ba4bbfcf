/**
 * OpenAI's Realtime transcription dialect (/v1/realtime): JSON events only, audio as base64 PCM16 at
 * 24 kHz in `input_audio_buffer.append` (resampled here to the engine's 16 kHz), turns found by the
 * engine's Silero endpointing (OpenAI's `server_vad`) or ended by a manual `commit`. Each utterance is
 * one conversation item: `speech_started` at its first interim, a `delta` whenever the settled text
 * grows, then `speech_stopped`, `committed` and `completed` with the final text. Events and fields as
 * the `openai` package types them (protocol/realtime.ts); docs/api.md "Realtime transcription".
 */
import { liveLanguage, parseLiveMessage } from "../../protocol/live.ts";
import {
  REALTIME_MAX_EVENT_CHARS,
  REALTIME_MIN_COMMIT_MS,
  REALTIME_SAMPLE_RATE,
  RealtimeClientEvent,
  type RealtimeError,
  type RealtimeWire,
} from "../../protocol/realtime.ts";
import type { ClientDialect, DialectStep, EngineMessage } from "./dialect.ts";
import { pcm16Bytes, pcm16Samples, Resampler24kTo16k } from "./pcm-resample.ts";

export interface RealtimeState {
  wire: RealtimeWire;
  session_id: string;
  /** The transcription model the client named (the engine serves its loaded model whatever the name). */
  model: string;
  /** ISO-639-1, or null: detected per utterance. */
  language: string | null;
  prompt: string | null;
  /** The utterance being spoken, as an item: its id and the text already sent as deltas. */
  item: { id: string; utterance: string; sent: string } | null;
  previous_item_id: string | null;
  /** A manual commit is with the engine; a final arriving meanwhile is the committed item. */
  commit: "none" | "pending" | "answered";
}

/** The initial state of a session opened with `?model=` (GA) or `?intent=transcription` (beta). */
export function realtimeState(wire: RealtimeWire, sessionId: string, model: string): RealtimeState {
  return {
    wire,
    session_id: sessionId,
    model,
    language: null,
    prompt: null,
    item: null,
    previous_item_id: null,
    commit: "none",
  };
}

const eventId = () => `event_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;

export class RealtimeDialect implements ClientDialect {
  readonly waitsForEngine = true;
  readonly #resampler = new Resampler24kTo16k();
  /** Audio appended since the last item ended, ms (memory only: a commit's "buffer too small" check). */
  #uncommittedMs = 0;

  constructor(private current: RealtimeState) {}

  read(frame: string | ArrayBuffer): DialectStep {
    if (typeof frame !== "string") {
      return this.refuse("binary frames are not read: send audio as input_audio_buffer.append events");
    }
    if (frame.length > REALTIME_MAX_EVENT_CHARS) {
      return this.refuse(
        `event of ${frame.length} characters exceeds ${REALTIME_MAX_EVENT_CHARS}: append audio in smaller chunks`,
        { code: "event_too_large" },
      );
    }
    const parsed = parseLiveMessage(RealtimeClientEvent, frame);
    if (!parsed.ok) {
      return this.refuse(
        `${parsed.error} (a transcription session takes session.update, transcription_session.update and input_audio_buffer.append, commit and clear)`,
        { code: "invalid_event" },
      );
    }
    const event = parsed.value;
    switch (event.type) {
      case "session.update":
      case "transcription_session.update":
        return this.update(event);
      case "input_audio_buffer.append":
        return this.append(event.audio, event.event_id);
      case "input_audio_buffer.commit":
        return this.commit(event.event_id);
      case "input_audio_buffer.clear":
        this.#uncommittedMs = 0;
        return { toClient: [{ type: "input_audio_buffer.cleared", event_id: eventId() }] };
    }
  }

  paired(): DialectStep {
    const created = this.current.wire === "ga" ? "session.created" : "transcription_session.created";
    return {
      toNode: [{ type: "config", language: this.current.language ?? "auto" }],
      toClient: [{ type: created, event_id: eventId(), session: this.session() }],
    };
  }

  fromEngine(message: EngineMessage): DialectStep {
    if (message.type === "error") return { toClient: [this.error(message.message)] };
    if (message.type === "committed") return this.committed();
    const events: unknown[] = [];
    const item = this.itemFor(message.utterance_id, message.start, events);
    if (message.text.startsWith(item.sent) && message.text.length > item.sent.length) {
      events.push({
        type: "conversation.item.input_audio_transcription.delta",
        event_id: eventId(),
        item_id: item.id,
        content_index: 0,
        delta: message.text.slice(item.sent.length),
      });
      item.sent = message.text;
    }
    if (message.type === "final") {
      events.push(...this.itemEnd(item.id, message.text, message.start, message.end));
      if (this.current.commit === "pending") this.current.commit = "answered";
    }
    return { toClient: events };
  }

  error(message: string, fields: Partial<RealtimeError> = {}): unknown {
    const error: RealtimeError = {
      type: "invalid_request_error",
      code: null,
      message,
      param: null,
      event_id: null,
      ...fields,
    };
    return { type: "error", event_id: eventId(), error };
  }

  state(): RealtimeState {
    return this.current;
  }

  private refuse(message: string, fields: Partial<RealtimeError> = {}): DialectStep {
    return { toClient: [this.error(message, fields)] };
  }

  private update(
    event: Extract<RealtimeClientEvent, { type: "session.update" | "transcription_session.update" }>,
  ): DialectStep {
    const ga = event.type === "session.update" ? event.session : null;
    const beta = event.type === "transcription_session.update" ? event.session : null;
    const ref = { event_id: event.event_id ?? null };
    if (ga && ga.type !== "transcription") {
      return this.refuse(
        `session.type ${JSON.stringify(ga.type)} is not served here: this endpoint runs transcription sessions only`,
        { ...ref, param: "session.type", code: "invalid_value" },
      );
    }
    const format = ga ? ga.audio?.input?.format : undefined;
    const formatOk = ga
      ? !format ||
        (format.type === "audio/pcm" && (format.rate ?? REALTIME_SAMPLE_RATE) === REALTIME_SAMPLE_RATE)
      : (beta?.input_audio_format ?? "pcm16") === "pcm16";
    if (!formatOk) {
      return this.refuse("only 16-bit PCM at 24 kHz is taken (audio/pcm, rate 24000; pcm16)", {
        ...ref,
        param: ga ? "session.audio.input.format" : "session.input_audio_format",
        code: "invalid_value",
      });
    }
    const include = (ga ?? beta)?.include ?? [];
    if (include.length > 0) {
      return this.refuse("include is not served on realtime sessions (no logprobs here)", {
        ...ref,
        param: "session.include",
        code: "invalid_value",
      });
    }
    const transcription = ga ? ga.audio?.input?.transcription : beta?.input_audio_transcription;
    const language = transcription?.language ? liveLanguage(transcription.language) : "auto";
    if (!language) {
      return this.refuse(`unsupported language: ${transcription?.language}`, {
        ...ref,
        param: ga
          ? "session.audio.input.transcription.language"
          : "session.input_audio_transcription.language",
        code: "invalid_value",
      });
    }
    this.current = {
      ...this.current,
      wire: ga ? "ga" : "beta",
      model: transcription?.model ?? this.current.model,
      language: language === "auto" ? null : language,
      prompt: transcription?.prompt ?? this.current.prompt,
    };
    const updated = ga ? "session.updated" : "transcription_session.updated";
    return {
      toNode: [{ type: "config", language }],
      toClient: [{ type: updated, event_id: eventId(), session: this.session() }],
    };
  }

  private append(base64: string, clientEventId: string | undefined): DialectStep {
    let bytes: Uint8Array;
    try {
      bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
    } catch {
      return this.refuse("audio is not valid base64", {
        param: "audio",
        code: "invalid_value",
        event_id: clientEventId ?? null,
      });
    }
    if (bytes.length % 2 !== 0) {
      return this.refuse("audio carries whole 16-bit samples: odd byte count, chunk dropped", {
        param: "audio",
        code: "invalid_value",
        event_id: clientEventId ?? null,
      });
    }
    const samples = pcm16Samples(bytes);
    this.#uncommittedMs += (samples.length * 1000) / REALTIME_SAMPLE_RATE;
    const out = this.#resampler.push(samples);
    return out.length > 0 ? { audio: pcm16Bytes(out) } : {};
  }

  private commit(clientEventId: string | undefined): DialectStep {
    if (this.#uncommittedMs < REALTIME_MIN_COMMIT_MS) {
      const had = Math.round(this.#uncommittedMs);
      return this.refuse(
        `Error committing input audio buffer: buffer too small. Expected at least ${REALTIME_MIN_COMMIT_MS}ms of audio, but buffer only has ${had}ms of audio.`,
        { code: "input_audio_buffer_commit_empty", event_id: clientEventId ?? null },
      );
    }
    this.#uncommittedMs = 0;
    this.current.commit = "pending";
    return { toNode: [{ type: "commit" }] };
  }

  /** The engine finished a commit: with no final meanwhile the audio held no speech, an empty item. */
  private committed(): DialectStep {
    const answered = this.current.commit === "answered";
    this.current.commit = "none";
    if (answered) return {};
    const id = this.newItemId(`c${Date.now().toString(36)}`);
    return { toClient: this.itemEnd(id, "", 0, 0, false) };
  }

  /** The item of an utterance, opened (with `speech_started`) at its first message. */
  private itemFor(utterance: string, start: number, events: unknown[]): NonNullable<RealtimeState["item"]> {
    if (this.current.item?.utterance === utterance) return this.current.item;
    const item = { id: this.newItemId(utterance), utterance, sent: "" };
    this.current.item = item;
    events.push({
      type: "input_audio_buffer.speech_started",
      event_id: eventId(),
      audio_start_ms: Math.round(start * 1000),
      item_id: item.id,
    });
    return item;
  }

  /**
   * The events that close an item: the speech stopped (when speech was heard: a commit of silence has
   * none), the buffer committed, the transcript done.
   */
  private itemEnd(itemId: string, transcript: string, start: number, end: number, spoken = true): unknown[] {
    const previous = this.current.previous_item_id;
    this.current.previous_item_id = itemId;
    this.current.item = null;
    this.#uncommittedMs = 0;
    const stopped = {
      type: "input_audio_buffer.speech_stopped",
      event_id: eventId(),
      audio_end_ms: Math.round(end * 1000),
      item_id: itemId,
    };
    return [
      ...(spoken ? [stopped] : []),
      {
        type: "input_audio_buffer.committed",
        event_id: eventId(),
        item_id: itemId,
        previous_item_id: previous,
      },
      {
        type: "conversation.item.input_audio_transcription.completed",
        event_id: eventId(),
        item_id: itemId,
        content_index: 0,
        transcript,
        usage: { type: "duration", seconds: Math.max(0, Math.round((end - start) * 1000) / 1000) },
      },
    ];
  }

  private newItemId(suffix: string): string {
    return `item_${this.current.session_id.slice(-12)}_${suffix}`.slice(0, 64);
  }

  /** The session as reported back: what was asked, and what the engine does (server VAD, 24 kHz PCM). */
  private session(): unknown {
    const { session_id: id, model, language, prompt } = this.current;
    const turnDetection = { type: "server_vad" };
    if (this.current.wire === "beta") {
      return {
        id,
        object: "realtime.transcription_session",
        input_audio_format: "pcm16",
        input_audio_transcription: { model, language, prompt },
        turn_detection: turnDetection,
      };
    }
    return {
      type: "transcription",
      id,
      object: "realtime.transcription_session",
      audio: {
        input: {
          format: { type: "audio/pcm", rate: REALTIME_SAMPLE_RATE },
          transcription: { model, language, prompt },
          turn_detection: turnDetection,
        },
      },
    };
  }
}
