/**
 * Which dialect a LiveSession's client speaks, and its state as kept with the client's socket.
 */
import type { RealtimeWire } from "../../protocol/realtime.ts";
import type { ClientDialect } from "./dialect.ts";
import { MicDialect, type MicState } from "./mic-dialect.ts";
import { RealtimeDialect, type RealtimeState, realtimeState } from "./realtime-dialect.ts";
import { SingleDialect, type SingleState } from "./single-mode.ts";

/**
 * What a session serves, each in its client dialect: `mic`, the live microphone (/ws: transcripts,
 * behind the one-session gate); `single`, single-device translation (/api/v1/ws/single: translated
 * transcripts, no gate); `realtime`, OpenAI's Realtime transcription (/v1/realtime, no gate).
 */
export type SessionMode = "mic" | "single" | "realtime";

export type DialectState =
  | { mode: "mic"; state: MicState }
  | { mode: "single"; state: SingleState }
  | { mode: "realtime"; state: RealtimeState };

export function sessionMode(value: string | null): SessionMode {
  return value === "single" || value === "realtime" ? value : "mic";
}

/** A new client's dialect state from its join. */
export function initialState(mode: SessionMode, join: URLSearchParams): DialectState {
  const language = join.get("language") ?? "auto";
  if (mode === "single") return { mode, state: { language, translate_language: null } };
  if (mode === "realtime") {
    const wire: RealtimeWire = join.get("wire") === "beta" ? "beta" : "ga";
    return { mode, state: realtimeState(wire, join.get("session_id") ?? "", join.get("model") ?? "") };
  }
  return { mode, state: { language } };
}

export function dialectOf(attachment: DialectState): ClientDialect {
  switch (attachment.mode) {
    case "mic":
      return new MicDialect(attachment.state);
    case "single":
      return new SingleDialect(attachment.state);
    case "realtime":
      return new RealtimeDialect(attachment.state);
  }
}
