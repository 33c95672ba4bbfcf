import { signFields, verifyFields } from "../auth/hmac-signature.ts";

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

/** The signed fields of a grant; the version tag keeps old URLs from verifying under a future format. */
function fields(grant: UploadGrant) {
  return ["upload-v1", grant.objectKey, grant.contentType, grant.ownerKeyId, grant.expires] as const;
}

/**
 * The signature (base64url HMAC-SHA256) of a grant.
 *
 * @example await signUploadGrant(secret, { objectKey, contentType: "audio/mpeg", ownerKeyId, expires })
 */
export function signUploadGrant(secret: string, grant: UploadGrant): Promise<string> {
  return signFields(secret, fields(grant));
}

/** Whether `signature` was made for exactly this grant with `secret`; compared in constant time. */
export function verifyUploadGrant(secret: string, grant: UploadGrant, signature: string): Promise<boolean> {
  return verifyFields(secret, fields(grant), signature);
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
