import { DurableObject } from "cloudflare:workers";
import { type GateHolder, SessionGate } from "./session-gate.ts";

/**
 * The live microphone's one-session-at-a-time gate (/ws), one object per deployment, apart from the
 * LiveHub shards that hold the engines: a claim or a renewal never waits behind node traffic.
 */
export class LiveGate extends DurableObject<Env> {
  readonly #gate = new SessionGate(this.ctx.storage);

  /** Takes the gate for a session; false when another holds it. */
  async claim(session: Omit<GateHolder, "since" | "expires_at">): Promise<boolean> {
    return this.#gate.claim(session, Date.now());
  }

  /** Keeps a running session's claim alive; false tells the session it lost the gate. */
  async renew(sessionId: string): Promise<boolean> {
    return this.#gate.renew(sessionId, Date.now());
  }

  /** Opens the gate if `sessionId` holds it. Idempotent. */
  async release(sessionId: string): Promise<void> {
    await this.#gate.release(sessionId);
  }

  /** A session holds the gate. */
  async busy(): Promise<boolean> {
    return (await this.#gate.holder(Date.now())) !== null;
  }
}
