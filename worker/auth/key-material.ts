/** API key material: generation, hashing and extraction. Pure, so it runs in Workers and in Node CLIs. */

/** Every key starts with this, so a leaked key is recognisable (secret scanners, logs). */
export const KEY_PREFIX = "vx_";

/** SHA-256 of a key, hex: the only form in which keys are stored. */
export async function hashApiKey(key: string): Promise<string> {
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

export interface NewApiKey {
  id: string;
  /** The secret, shown once to its owner and never stored. */
  key: string;
  keyHash: string;
  prefix: string;
}

/** Makes a new key: 256 random bits, base64url, behind the recognisable prefix. Runs in Workers and Node. */
export async function generateApiKey(): Promise<NewApiKey> {
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const key = `${KEY_PREFIX}${base64url(secret)}`;
  const id = `key_${base64url(crypto.getRandomValues(new Uint8Array(9)))}`;
  return { id, key, keyHash: await hashApiKey(key), prefix: key.slice(0, KEY_PREFIX.length + 6) };
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}
