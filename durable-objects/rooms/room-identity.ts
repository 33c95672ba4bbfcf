/**
 * Who a connecting participant is. Every participant sees every client_id (presence messages carry
 * them), so a client_id proves nothing: a participant's place is taken back only with the secret
 * resume token the room sent in that participant's own welcome. The room stores the token's SHA-256,
 * compares hashes in constant time, and mints a fresh token on every join (a token that leaked, e.g.
 * from a URL in a log, is spent once its owner reconnects).
 */
import type { Participant } from "./room-protocol.ts";

/** A new resume token (256 random bits, base64url) and the hash the room keeps of it. */
export async function newResumeToken(): Promise<{ token: string; hash: string }> {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const token = btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
  return { token, hash: await resumeHash(token) };
}

/** SHA-256 of a resume token, hex. */
export async function resumeHash(token: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Constant-time equality of two hex hashes (their length is public: both are SHA-256). */
export function sameHash(a: string, b: string): boolean {
  const [x, y] = [new TextEncoder().encode(a), new TextEncoder().encode(b)];
  if (x.byteLength !== y.byteLength) return false;
  return crypto.subtle.timingSafeEqual(x, y);
}

/** Where a connect lands: back into `known`'s place, or a new participant with `client_id`. */
export type Place = { known: Participant; client_id: string } | { known: null; client_id: string };

/**
 * Decides the place of a connect. A matching resume token (its hash) gives its participant's place
 * back; anything else joins as a new participant: with the `asked` client_id when no participant has
 * it (a first connect may choose its id), else with a fresh one — naming someone's client_id never
 * takes their place.
 *
 * @example
 * placeFor([a], { asked: a.client_id, resumeHash: null }); // { known: null, client_id: "<uuid>" }
 */
export function placeFor(
  participants: readonly Participant[],
  ask: { asked: string | null; resumeHash: string | null },
): Place {
  if (ask.resumeHash !== null) {
    // every stored hash is compared, so the time taken does not say which participant matched
    let known: Participant | null = null;
    for (const p of participants) {
      if (sameHash(p.resume_hash, ask.resumeHash)) known = p;
    }
    if (known) return { known, client_id: known.client_id };
  }
  const taken = ask.asked !== null && participants.some((p) => p.client_id === ask.asked);
  return { known: null, client_id: ask.asked !== null && !taken ? ask.asked : crypto.randomUUID() };
}
