/**
 * The live-microphone session gate: at most one session at a time. The holder renews it while its
 * session runs (the LiveSession's alarm tick); a holder that stops renewing — its object was reset or
 * crashed — loses it after GATE_TTL_MS, so the gate can never stay shut for good.
 */

/** How long a claim lasts without renewal. LiveSession renews every second. */
export const GATE_TTL_MS = 5_000;

const GATE_KEY = "gate";

export interface GateHolder {
  session_id: string;
  key_id: string;
  /** Unix ms. */
  since: number;
  expires_at: number;
}

/** The gate, kept in the LiveGate's storage (cached in memory: that object is its only writer). */
export class SessionGate {
  #holder: GateHolder | null | undefined;

  constructor(private readonly storage: DurableObjectStorage) {}

  /** The current holder, or null when the gate is open (never claimed, released, or expired). */
  async holder(now: number): Promise<GateHolder | null> {
    if (this.#holder === undefined) this.#holder = (await this.storage.get<GateHolder>(GATE_KEY)) ?? null;
    return this.#holder && this.#holder.expires_at > now ? this.#holder : null;
  }

  /** Takes the gate for a session; false when another holds it. */
  async claim(session: Omit<GateHolder, "since" | "expires_at">, now: number): Promise<boolean> {
    if (await this.holder(now)) return false;
    await this.write({ ...session, since: now, expires_at: now + GATE_TTL_MS });
    return true;
  }

  /** Extends the holder's claim; false when `sessionId` no longer holds the gate. */
  async renew(sessionId: string, now: number): Promise<boolean> {
    await this.holder(now);
    // an expired claim may still be renewed while nobody else took the gate meanwhile
    if (this.#holder?.session_id !== sessionId) return false;
    await this.write({ ...this.#holder, expires_at: now + GATE_TTL_MS });
    return true;
  }

  /** Opens the gate if `sessionId` holds it. Idempotent. */
  async release(sessionId: string): Promise<void> {
    await this.holder(Date.now());
    if (this.#holder?.session_id !== sessionId) return;
    this.#holder = null;
    await this.storage.delete(GATE_KEY);
  }

  private async write(holder: GateHolder): Promise<void> {
    this.#holder = holder;
    await this.storage.put(GATE_KEY, holder);
  }
}
