import { signFields, verifyFields } from "../auth/hmac-signature.ts";

/**
 * Signed GET /media URLs (local mode, and anywhere R2's S3 API is not configured): the object key and
 * an expiry, HMAC-signed with UPLOAD_SIGNING_SECRET, so a link works in a browser (an <audio> or
 * <video> element, a download) without headers, and stops working when it expires.
 */

const fields = (objectKey: string, expires: number) => ["media-v1", objectKey, expires] as const;

/**
 * A signed GET URL of a stored object, valid until `expires` (Unix seconds).
 *
 * @example await signedMediaUrl("http://127.0.0.1:8787", secret, "outputs/…/short.mp4", now + 3600)
 */
export async function signedMediaUrl(
  baseUrl: string,
  secret: string,
  objectKey: string,
  expires: number,
): Promise<string> {
  const query = new URLSearchParams({
    expires: String(expires),
    sig: await signFields(secret, fields(objectKey, expires)),
  });
  return `${baseUrl}/media/${objectKey}?${query}`;
}

/** Why a media URL is refused, or null when it is signed for this key and not expired. */
export async function mediaUrlProblem(
  secret: string,
  objectKey: string,
  query: URLSearchParams,
  nowSec: number,
): Promise<"unsigned" | "forged" | "expired" | null> {
  const expires = query.get("expires");
  const signature = query.get("sig");
  if (!expires || !signature || !/^\d{1,12}$/.test(expires)) return "unsigned";
  if (!(await verifyFields(secret, fields(objectKey, Number(expires)), signature))) return "forged";
  return Number(expires) < nowSec ? "expired" : null;
}
