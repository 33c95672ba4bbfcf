/**
 * The clocks of one live session, checked on every alarm tick: a client that went silent (vanished
 * without a close), an engine that never dialled in, a client that never arrived, a flush that hangs,
 * a session at its longest (LIVE_MAX_SESSION_SEC).
 */
import { LiveClose } from "../../protocol/live.ts";

/** An assigned node must dial in within this long (it takes one WebSocket handshake), and a claimed client arrive. */
export const JOIN_TIMEOUT_MS = 3_000;
/** After `end`, the engine has this long to send its last finals. */
export const FLUSH_TIMEOUT_MS = 30_000;

/** How a session ends: the client's close code and reason, and an error message sent before it. */
export interface SessionOutcome {
  code: number;
  reason: string;
  error?: string;
}

export interface SessionClocks {
  now: number;
  /** When the client socket was accepted; null while it has not arrived. */
  clientOpenedAt: number | null;
  /** Last frame of any kind from the client. */
  lastClientFrameAt: number | null;
  /** When the client sent `end`. */
  endingSince: number | null;
  /** When the node socket was accepted; null while it has not dialled in. */
  nodeJoinedAt: number | null;
}

/** The configured limits: LIVE_IDLE_TIMEOUT_MS and LIVE_MAX_SESSION_SEC, in ms. */
export interface SessionLimits {
  idleTimeoutMs: number;
  maxSessionMs: number;
}

/**
 * The timeout that ended the session, or null while everything is within its limits.
 *
 * @example
 * checkTimeouts(
 *   { now: 20_000, clientOpenedAt: 0, lastClientFrameAt: 5_000, endingSince: null, nodeJoinedAt: 100 },
 *   { idleTimeoutMs: 10_000, maxSessionMs: 7_200_000 },
 * );
 * // { code: 1001, reason: "idle timeout", error: "no data from the client for 10000 ms: session closed" }
 */
export function checkTimeouts(clocks: SessionClocks, limits: SessionLimits): SessionOutcome | null {
  const { idleTimeoutMs, maxSessionMs } = limits;
  const { now, clientOpenedAt, lastClientFrameAt, endingSince, nodeJoinedAt } = clocks;
  if (clientOpenedAt === null) {
    if (nodeJoinedAt !== null && now - nodeJoinedAt > JOIN_TIMEOUT_MS) {
      return { code: LiveClose.normal, reason: "the client never arrived" };
    }
    return null;
  }
  if (nodeJoinedAt === null) {
    if (now - clientOpenedAt <= JOIN_TIMEOUT_MS) return null;
    return {
      code: LiveClose.engineLost,
      reason: "no streaming engine answered",
      error: "the streaming engine did not join the session; try again",
    };
  }
  if (endingSince !== null) {
    if (now - endingSince <= FLUSH_TIMEOUT_MS) return null;
    return {
      code: LiveClose.engineLost,
      reason: "flush timed out",
      error: "the last finals did not arrive in time",
    };
  }
  // A client streaming silence is not idle: only this bounds how long it holds the gate or a slot.
  if (now - clientOpenedAt >= maxSessionMs) {
    return {
      code: LiveClose.maxDuration,
      reason: "maximum session length reached",
      error: `the session reached its maximum length (${maxSessionMs / 1000} s): connect again to go on`,
    };
  }
  // the client can only send once it heard `ready`, i.e. once the node joined
  const lastSign = Math.max(lastClientFrameAt ?? clientOpenedAt, nodeJoinedAt);
  if (now - lastSign > idleTimeoutMs) {
    return {
      code: LiveClose.idle,
      reason: "idle timeout",
      error: `no data from the client for ${idleTimeoutMs} ms: session closed`,
    };
  }
  return null;
}
