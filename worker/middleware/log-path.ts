/**
 * The request path as the request log writes it: a path segment that is itself a capability (whoever
 * knows it may read or join what it names) becomes a short hash, so the log still tells requests for the
 * same thing apart without handing out the thing. Plain function, no I/O but SHA-256.
 */

/**
 * Paths whose captured parts are secrets: a media object key (GET /media serves it to anyone), a signed
 * PUT's object key, a conversation id (joining a room needs nothing else), and the room stream a node
 * dials. Route names in the same places (`single`, `create`) are not captured.
 */
const CAPABILITY_PATHS: readonly RegExp[] = [
  /^\/media\/(.+)$/,
  /^\/uploads\/put\/(.+)$/,
  /^\/api\/v1\/ws\/(?!single$)([^/]+)$/,
  /^\/api\/v1\/session\/(?!create$)([^/]+)$/,
  /^\/join\/([^/]+)$/,
  /^\/internal\/v1\/rooms\/([^/]+)\/streams\/([^/]+)$/,
];

/** Hex digits of SHA-256 kept: enough to tell requests apart, far too few to find the secret by. */
const HASH_HEX_DIGITS = 12;

/**
 * `path` with every secret part replaced by `sha256:` and the first 12 hex digits of its SHA-256.
 *
 * @example await loggedPath("/join/6f1c0e4a-…") // "/join/sha256:1d2c3b4a5f6e"
 */
export async function loggedPath(path: string): Promise<string> {
  const pattern = CAPABILITY_PATHS.find((candidate) => candidate.test(path));
  const match = pattern?.exec(path);
  if (!match) return path;
  let logged = "";
  let from = 0;
  // the groups appear in order in the path: copy what lies between them, hash each
  for (const secret of match.slice(1)) {
    const at = path.indexOf(secret, from);
    logged += `${path.slice(from, at)}${await shortHash(secret)}`;
    from = at + secret.length;
  }
  return logged + path.slice(from);
}

async function shortHash(secret: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secret));
  const hex = [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `sha256:${hex.slice(0, HASH_HEX_DIGITS)}`;
}
