/**
 * Signed upload URLs for the Worker's own PUT route (local mode, no R2 S3 credentials): an HMAC-SHA256
 * over what the URL grants, checked in constant time.
 */

/** What a signed upload URL grants: one object key, one Content-Type, for one owner, until `expires`. */
export interface UploadGrant {
  objectKey: string;
  contentType: string;
  ownerKeyId: string;
  /** Unix seconds. */
  expires: number;
}

const encoder = new TextEncoder();

function message(grant: UploadGrant): Uint8Array {
  // JSON keeps the fields apart whatever characters they hold; the version tag keeps old URLs from
  // verifying under a future format.
  return encoder.encode(
    JSON.stringify(["upload-v1", grant.objectKey, grant.contentType, grant.ownerKeyId, grant.expires]),
  );
}

async function mac(secret: string, grant: UploadGrant): Promise<ArrayBuffer> {
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return crypto.subtle.sign("HMAC", key, message(grant));
}

/**
 * The signature (base64url HMAC-SHA256) of a grant.
 *
 * @example await signUploadGrant(secret, { objectKey, contentType: "audio/mpeg", ownerKeyId, expires })
 */
export async function signUploadGrant(secret: string, grant: UploadGrant): Promise<string> {
  return toBase64Url(new Uint8Array(await mac(secret, grant)));
}

/** Whether `signature` was made for exactly this grant with `secret`; compared in constant time. */
export async function verifyUploadGrant(
  secret: string,
  grant: UploadGrant,
  signature: string,
): Promise<boolean> {
  const given = fromBase64Url(signature);
  const expected = await mac(secret, grant);
  // A MAC's length is public, so refusing a wrong-length one early leaks nothing.
  if (!given || given.byteLength !== expected.byteLength) return false;
  return crypto.subtle.timingSafeEqual(given, expected);
}

/** The upload_url of the signed PUT route for a grant. */
export async function signedPutUrl(baseUrl: string, secret: string, grant: UploadGrant): Promise<string> {
  const query = new URLSearchParams({
    expires: String(grant.expires),
    ct: grant.contentType,
    owner: grant.ownerKeyId,
    sig: await signUploadGrant(secret, grant),
  });
  return `${baseUrl}/uploads/put/${grant.objectKey}?${query}`;
}

/** The grant and signature a signed PUT URL carries, or null when a parameter is missing or malformed. */
export function readSignedPut(
  objectKey: string,
  query: URLSearchParams,
): { grant: UploadGrant; signature: string } | null {
  const expires = query.get("expires");
  const contentType = query.get("ct");
  const ownerKeyId = query.get("owner");
  const signature = query.get("sig");
  if (!expires || !/^\d{1,12}$/.test(expires) || !contentType || !ownerKeyId || !signature) return null;
  return { grant: { objectKey, contentType, ownerKeyId, expires: Number(expires) }, signature };
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
