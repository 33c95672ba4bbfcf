/**
 * HMAC-SHA256 signatures over a list of fields, for the URLs the Worker signs itself (upload PUTs,
 * media GETs). The fields are JSON-encoded together so none can bleed into another; the first field is
 * a version tag so a URL of one kind never verifies as another. Verification is constant-time.
 */

const encoder = new TextEncoder();

export type SignedFields = readonly (string | number)[];

async function mac(secret: string, fields: SignedFields): Promise<ArrayBuffer> {
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return crypto.subtle.sign("HMAC", key, encoder.encode(JSON.stringify(fields)));
}

/**
 * The base64url signature of `fields`.
 *
 * @example await signFields(secret, ["media-v1", objectKey, expires])
 */
export async function signFields(secret: string, fields: SignedFields): Promise<string> {
  return toBase64Url(new Uint8Array(await mac(secret, fields)));
}

/** Whether `signature` was made for exactly these fields with `secret`; compared in constant time. */
export async function verifyFields(
  secret: string,
  fields: SignedFields,
  signature: string,
): Promise<boolean> {
  const given = fromBase64Url(signature);
  const expected = await mac(secret, fields);
  // A MAC's length is public, so refusing a wrong-length one early leaks nothing.
  if (!given || given.byteLength !== expected.byteLength) return false;
  return crypto.subtle.timingSafeEqual(given, expected);
}

function toBase64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}
