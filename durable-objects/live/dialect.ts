/**
 * A LiveSession serves one client dialect: the live microphone (/ws), single-device translation
 * (/api/v1/ws/single) or OpenAI's Realtime transcription (/v1/realtime). The session object relays
 * frames, keeps time and ends the stream; what a client frame means, what the client hears when the
 * engine joins and how an engine result reads in the client's language of events is the dialect's,
 * decided without side effects and carried out by the object.
 */
import {
  LIVE_FORMAT,
  LIVE_SAMPLE_RATE,
  type NodeToSession,
  type ServerMessage,
  type SessionToNode,
} from "../../protocol/live.ts";
import type { ClientAction } from "./client-input.ts";

/**
 * The engine's messages a dialect turns into client events (`ended` and `translated` are the
 * session's; speech answers only come to rooms, which ask for them).
 */
export type EngineMessage = Exclude<
  NodeToSession,
  { type: "ended" | "translated" | "synthesized" | "synthesis_failed" }
>;

/** What the session does with one frame or one engine message. */
export interface DialectStep {
  /** JSON events for the client, in order. */
  toClient?: unknown[];
  /** Control messages for the engine, in order. */
  toNode?: SessionToNode[];
  /** 16 kHz PCM16 for the engine (waits, bounded, until the engine is in where the dialect allows). */
  audio?: ArrayBuffer;
  /** The client asked to end the stream: the engine flushes, then the session closes. */
  end?: boolean;
  /** Close the session at once. */
  close?: { code: number; reason: string };
}

export interface ClientDialect {
  /** Audio before the engine joined waits for it; otherwise the client is told it was discarded. */
  readonly waitsForEngine: boolean;
  /** One client frame. */
  read(frame: string | ArrayBuffer): DialectStep;
  /** Both sides are in: the engine's config and the client's greeting. */
  paired(sessionId: string): DialectStep;
  /** One engine message. */
  fromEngine(message: EngineMessage): DialectStep;
  /** An error sentence as this client reads errors. */
  error(message: string): unknown;
  /** The state to keep across hibernation (written to the client socket's attachment). */
  state(): unknown;
}

/**
 * The step for a classified frame of a binary-audio dialect (/ws, single-device): a close, an error
 * in the dialect's shape, audio (as `audio` decides), or a control message for the engine.
 */
export function actionStep(
  action: ClientAction,
  errorOf: (message: string) => unknown,
  audio: (data: ArrayBuffer) => DialectStep = (data) => ({ audio: data }),
): DialectStep {
  switch (action.kind) {
    case "close":
      return { close: { code: action.code, reason: action.reason } };
    case "error":
      return { toClient: [errorOf(action.message)] };
    case "audio":
      return audio(action.data);
    case "control":
      return { toNode: [action.message], ...(action.message.type === "end" && { end: true }) };
  }
}

/** The `ready` greeting of the binary-audio dialects, once the engine is in. */
export function readyMessage(sessionId: string): ServerMessage {
  return { type: "ready", session_id: sessionId, sample_rate: LIVE_SAMPLE_RATE, format: LIVE_FORMAT };
}
