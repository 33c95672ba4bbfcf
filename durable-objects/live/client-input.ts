/**
 * What a client's frame means for a live session, decided without side effects so the object only
 * carries it out: relay audio, relay a control message, answer with an error, or close.
 */
import {
  ClientControl,
  LIVE_MAX_FRAME_BYTES,
  LiveClose,
  liveLanguage,
  parseLiveMessage,
  type SessionToNode,
} from "../../protocol/live.ts";

/** Longest control message worth parsing; anything longer is not one of ours. */
export const MAX_CONTROL_CHARS = 4096;

export type ClientAction =
  | { kind: "audio"; data: ArrayBuffer }
  | { kind: "control"; message: SessionToNode }
  | { kind: "error"; message: string }
  | { kind: "close"; code: number; reason: string };

/**
 * Classifies one client frame.
 *
 * @example
 * readClientFrame('{"type":"config","language":"German"}');
 * // { kind: "control", message: { type: "config", language: "de" } }
 */
export function readClientFrame(frame: string | ArrayBuffer): ClientAction {
  if (typeof frame !== "string") return readAudioFrame(frame);
  const tooLong = checkControlLength(frame);
  if (tooLong) return tooLong;
  const parsed = parseLiveMessage(ClientControl, frame);
  if (!parsed.ok) return { kind: "error", message: parsed.error };
  if (parsed.value.type === "end") return { kind: "control", message: parsed.value };
  const language = liveLanguage(parsed.value.language);
  if (!language) return { kind: "error", message: `unsupported language: ${parsed.value.language}` };
  return { kind: "control", message: { type: "config", language } };
}

/**
 * A binary frame of any live socket (/ws, single-device, rooms): PCM16 audio, or too big (close 1009),
 * or an odd byte count (an error, frame dropped).
 *
 * @example readAudioFrame(new ArrayBuffer(3200)); // { kind: "audio", data }
 */
export function readAudioFrame(
  frame: ArrayBuffer,
): Extract<ClientAction, { kind: "audio" | "error" | "close" }> {
  if (frame.byteLength > LIVE_MAX_FRAME_BYTES) {
    return {
      kind: "close",
      code: LiveClose.tooBig,
      reason: `binary frame of ${frame.byteLength} bytes exceeds ${LIVE_MAX_FRAME_BYTES}`,
    };
  }
  if (frame.byteLength % 2 !== 0) {
    return {
      kind: "error",
      message: "binary frames carry whole 16-bit samples: odd byte count, frame dropped",
    };
  }
  return { kind: "audio", data: frame };
}

/** An error action for a text frame too long to be a control message, or null. */
export function checkControlLength(frame: string): Extract<ClientAction, { kind: "error" }> | null {
  if (frame.length <= MAX_CONTROL_CHARS) return null;
  return {
    kind: "error",
    message: `text frame longer than ${MAX_CONTROL_CHARS} characters: audio goes in binary frames`,
  };
}
