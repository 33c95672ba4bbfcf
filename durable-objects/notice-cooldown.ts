/** How often a client is told the same refusal at most: a message per dropped frame would be ~50 a second. */
export const NOTICE_COOLDOWN_MS = 5_000;

/**
 * Who was told a repeated refusal when, so each is told at most once per NOTICE_COOLDOWN_MS (a room's
 * speaker with no engine free, a single-device client streaming before its config). In memory: an
 * object woken from hibernation tells once more, which costs one message.
 *
 * @example if (cooldown.mayTell(clientId, Date.now())) send(error);
 */
export class NoticeCooldown<Key = string> {
  readonly #toldAt = new Map<Key, number>();

  /** True, and remembered, when `key` was not told within the cooldown before `now`. */
  mayTell(key: Key, now: number): boolean {
    const last = this.#toldAt.get(key);
    if (last !== undefined && now - last < NOTICE_COOLDOWN_MS) return false;
    this.#toldAt.set(key, now);
    return true;
  }

  forget(key: Key): void {
    this.#toldAt.delete(key);
  }
}
