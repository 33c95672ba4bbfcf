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

/**
 * Whether `signature` was made for exactly these fields with `secret`, spelt exactly as `signFields`
 * spells it; compared in constant time. The text is compared, not its decoded bytes: base64url has
 * several spellings of the same bytes (the last character's padding bits), and an altered token must
 * never verify.
 */
export async function verifyFields(
  secret: string,
  fields: SignedFields,
  signature: string,
): Promise<boolean> {
  const given = encoder.encode(signature);
  const expected = encoder.encode(await signFields(secret, fields));
  // A MAC's length is public, so refusing a wrong-length one early leaks nothing.
  if (given.byteLength !== expected.byteLength) return false;
  return crypto.subtle.timingSafeEqual(given, expected);
}

function toBase64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}
