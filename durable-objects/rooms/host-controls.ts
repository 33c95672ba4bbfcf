/**
 * The host's controls over a room, as plain decisions. Who is the host: the API key that created the
 * room, or whoever presents its host token (256 random bits from the create response; the room keeps
 * only its SHA-256 and compares it in constant time). What the host may do: lock or unlock the room to
 * new participants, remove a participant (its resume token is then refused while the room lives), stop
 * a speaker (it stays, as a listener), give a listener the floor, and end the room for everyone.
 */
import type { HostControl, ParticipantRole, SystemMessage } from "../../protocol/rooms.ts";
import { sameHash } from "./room-identity.ts";
import type { Participant, RoomSession } from "./room-protocol.ts";

/** How a host control call proves it is the host: a host token's hash, or the caller's API key. */
export type HostProof = { host_token_hash: string } | { key_id: string };

/** Why a host control is refused: no such room (or another key's), a wrong host token, no such participant. */
export type ControlRefusal = { ok: false; reason: "not_found" | "forbidden" | "no_participant" };

/**
 * Whether `proof` makes its caller the room's host. A key that did not create the room learns nothing
 * (not_found, as for an unknown room); a host token that is not this room's is forbidden.
 */
export function hostRefusal(session: RoomSession, proof: HostProof): ControlRefusal | null {
  if ("key_id" in proof) return proof.key_id === session.creator_key_id ? null : refused("not_found");
  const stored = session.host_token_hash;
  return stored !== undefined && sameHash(stored, proof.host_token_hash) ? null : refused("forbidden");
}

const refused = (reason: ControlRefusal["reason"]): ControlRefusal => ({ ok: false, reason });

/** What a host action changes: the session and participants to store, and what everyone is told. */
export interface ControlDecision {
  ok: true;
  session: RoomSession;
  participants: Participant[];
  /** The participant acted on (null for room-wide actions). */
  target: Participant | null;
  /** Null when the action changes nothing (e.g. stopping a listener): nobody is told. */
  system: SystemMessage | null;
}

const EVENTS = {
  lock: "locked",
  unlock: "unlocked",
  end: "ended",
  remove: "removed",
  stop_speaker: "speaker_stopped",
  grant_floor: "floor_granted",
} as const satisfies Record<HostControl["action"], SystemMessage["event"]>;

/**
 * Decides one host action over the room's state.
 *
 * @example
 * decideControl(session, [a], { action: "stop_speaker", client_id: a.client_id });
 * // { ok: true, participants: [{ ...a, role: "listener" }], system: { type: "system", event: "speaker_stopped", ... } }
 */
export function decideControl(
  session: RoomSession,
  participants: readonly Participant[],
  control: HostControl,
): ControlDecision | ControlRefusal {
  const system = (participant: string | null): SystemMessage => ({
    type: "system",
    event: EVENTS[control.action],
    participant,
    by: "host",
  });
  const all = [...participants];
  if (!("client_id" in control)) {
    const locked = control.action === "lock" ? true : control.action === "unlock" ? false : session.locked;
    const changed = control.action === "end" || locked !== (session.locked ?? false);
    return {
      ok: true,
      session: { ...session, locked },
      participants: all,
      target: null,
      system: changed ? system(null) : null,
    };
  }
  const target = participants.find((p) => p.client_id === control.client_id);
  if (!target) return refused("no_participant");
  if (control.action === "remove") {
    return {
      ok: true,
      session: { ...session, removed: [...(session.removed ?? []), target.resume_hash] },
      participants: all.filter((p) => p !== target),
      target,
      system: system(target.client_id),
    };
  }
  const role: ParticipantRole = control.action === "stop_speaker" ? "listener" : "speaker";
  const changed = (target.role ?? "speaker") !== role;
  return {
    ok: true,
    session,
    participants: all.map((p) => (p === target ? { ...p, role } : p)),
    target: { ...target, role },
    system: changed ? system(target.client_id) : null,
  };
}

/** Whether a join presenting `resumeHash` is of a participant the host removed. */
export const wasRemoved = (session: RoomSession, resumeHash: string | null): boolean =>
  resumeHash !== null && (session.removed ?? []).some((hash) => sameHash(hash, resumeHash));
