/**
 * Short-lived socket tokens: what a browser puts in a WebSocket URL (`?token=`) instead of its API key,
 * since a browser's WebSocket cannot set headers and URLs end up in histories and proxy logs. A token
 * is stateless: `vxt1.<key_id>.<scope>.<exp>.<nonce>.<signature>`, the signature an HMAC
 * (hmac-signature.ts, its own version tag) over every other field, so nothing in it can be changed. It
 * names its key by id, never carries the key, opens only the socket of its scope, and dies at `exp`.
 */
import type { SocketTokenScope } from "../schemas/auth.ts";
import { signFields, verifyFields } from "./hmac-signature.ts";

const WIRE_TAG = "vxt1";
/** The signature's version tag: no other signed thing of the Worker (upload PUTs, media links) verifies as a token. */
const SIGNATURE_TAG = "socket-token-v1";
/** Longer than any token we mint (key id ≤ 64, signature 43): refused before any parsing. */
const MAX_TOKEN_CHARS = 256;

export interface SocketTokenClaims {
  keyId: string;
  scope: SocketTokenScope;
  /** Unix seconds after which the token is refused. */
  expiresAt: number;
}

/**
 * A new token for these claims, with a random nonce (two tokens for the same key and second differ).
 *
 * @example await mintSocketToken(secret, { keyId: "key_abc", scope: "live", expiresAt: nowSec + 60 })
 */
export async function mintSocketToken(secret: string, claims: SocketTokenClaims): Promise<string> {
  const nonce = base64url(crypto.getRandomValues(new Uint8Array(12)));
  const signature = await signFields(secret, signedFields(claims, nonce));
  return [WIRE_TAG, claims.keyId, claims.scope, claims.expiresAt, nonce, signature].join(".");
}

/**
 * The claims of a token signed with `secret` for `scope` and not expired at `nowSec`; null for anything
 * else (malformed, altered, another scope, expired). Whether its key is still live is the caller's check.
 */
export async function verifySocketToken(
  secret: string,
  token: string,
  scope: SocketTokenScope,
  nowSec: number,
): Promise<SocketTokenClaims | null> {
  if (token.length > MAX_TOKEN_CHARS) return null;
  const parts = token.split(".");
  if (parts.length !== 6) return null;
  const [tag, keyId, tokenScope, exp, nonce, signature] = parts as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (tag !== WIRE_TAG || tokenScope !== scope || !/^[1-9]\d{0,11}$/.test(exp) || !keyId || !nonce)
    return null;
  const claims: SocketTokenClaims = { keyId, scope, expiresAt: Number(exp) };
  if (!(await verifyFields(secret, signedFields(claims, nonce), signature))) return null;
  return claims.expiresAt > nowSec ? claims : null;
}

function signedFields(claims: SocketTokenClaims, nonce: string) {
  return [SIGNATURE_TAG, claims.keyId, claims.scope, claims.expiresAt, nonce] as const;
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}
