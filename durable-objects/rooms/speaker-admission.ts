/**
 * Whether a room participant who starts speaking may have an engine stream, and what it is told when
 * not. Two limits apply: ROOM_MAX_SPEAKERS concurrent speakers per room (checked here, before the hub
 * is asked), and the room creator's LIVE_MAX_STREAMS_PER_KEY (the hub counts room streams against the
 * creator's key, in the same ledger as its /ws and single-device streams), so a room link cannot take
 * every engine slot. A refused speaker's speech is not transcribed; the room goes on.
 */
import type { RoomError } from "../../protocol/rooms.ts";
import type { ClaimRefusal } from "../live/refusals.ts";

type Warning = Pick<RoomError, "code" | "message">;

/**
 * The refusal for `clientId` when ROOM_MAX_SPEAKERS others are speaking already, else null.
 * `speaking`: participants whose stream takes audio or is asked of the hub.
 *
 * @example speakerRefusal(new Set(["a", "b"]), "c", 2); // { code: "speaker_limit", ... }
 */
export function speakerRefusal(speaking: ReadonlySet<string>, clientId: string, max: number): Warning | null {
  const others = [...speaking].filter((id) => id !== clientId).length;
  if (others < max) return null;
  return {
    code: "speaker_limit",
    message: `${max} participants are already speaking (the most this room allows at once); this speech was not transcribed, try again when one stops`,
  };
}

/**
 * What a speaker is told when the hub gave its stream no engine. The key limit is the room creator's,
 * which the participant does not hold, so it gets its own code and words.
 *
 * @example engineRefusal({ ok: false, reason: "full", message: "every streaming engine is busy; try again later" }, 2);
 * // { code: "no_engine", message: "every streaming engine is busy; try again later; this speech was not transcribed" }
 */
export function engineRefusal(refusal: Pick<ClaimRefusal, "reason" | "message">, maxPerKey: number): Warning {
  if (refusal.reason === "key_limit") {
    return {
      code: "key_limit",
      message: `the room creator's API key already has ${maxPerKey} live streams open (the most it may have); this speech was not transcribed, try again when a stream ends`,
    };
  }
  return { code: "no_engine", message: `${refusal.message}; this speech was not transcribed` };
}
