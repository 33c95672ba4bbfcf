/**
 * Credential material (API keys and node tokens): generation, hashing and extraction. Pure, so it runs
 * in Workers and in Node CLIs.
 */

/** Every key starts with this, so a leaked key is recognisable (secret scanners, logs). */
export const KEY_PREFIX = "vx_";
/** Every service key starts with this: a backend's credential, told apart from a client's key at a glance. */
export const SERVICE_KEY_PREFIX = "vxs_";
/** Every per-node token starts with this: never mistaken for an API key, on either side. */
export const NODE_TOKEN_PREFIX = "vxn_";

/** SHA-256 of a key or node token, hex: the only form in which either is stored. */
export async function hashSecret(key: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The key a request carries: `Authorization: Bearer <key>` or `x-api-key: <key>`. */
export function keyFromHeaders(headers: Headers): string | null {
  const authorization = headers.get("authorization");
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match?.[1]) return match[1];
  }
  return headers.get("x-api-key")?.trim() || null;
}

export interface NewSecret {
  id: string;
  /** The secret, shown once to its owner and never stored. */
  secret: string;
  /** SHA-256 of the secret: what the database keeps. */
  hash: string;
  /** The recognisable start of the secret, for listings. */
  prefix: string;
}

/** Makes a new secret: 256 random bits, base64url, behind a recognisable prefix. Runs in Workers and Node. */
async function generateSecret(secretPrefix: string, idPrefix: string): Promise<NewSecret> {
  const secret = `${secretPrefix}${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;
  const id = `${idPrefix}${base64url(crypto.getRandomValues(new Uint8Array(9)))}`;
  return { id, secret, hash: await hashSecret(secret), prefix: secret.slice(0, secretPrefix.length + 6) };
}

/** A new API key (`vx_…`, id `key_…`). */
export function generateApiKey(): Promise<NewSecret> {
  return generateSecret(KEY_PREFIX, "key_");
}

/** A new service key (`vxs_…`, id `svc_…`). */
export function generateServiceKey(): Promise<NewSecret> {
  return generateSecret(SERVICE_KEY_PREFIX, "svc_");
}

/** A new per-node token (`vxn_…`, id `node_…`). */
export function generateNodeToken(): Promise<NewSecret> {
  return generateSecret(NODE_TOKEN_PREFIX, "node_");
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** A new webhook signing secret in the Standard Webhooks format: `whsec_` + base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}
