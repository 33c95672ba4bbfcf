import { workerConfig } from "../../platform/config.ts";
import { MAX_MEDIA_BYTES } from "../../protocol/media-limits.ts";
import { ApiError } from "../errors.ts";
import { declaredLength, streamToR2, tooLarge } from "../media/r2-upload.ts";
import { isUploadKey } from "./object-keys.ts";
import { claimUploadPut, releaseUploadPut } from "./upload-registry.ts";
import { readSignedPut, verifyUploadGrant } from "./upload-signature.ts";

/** Where the signed PUT route lives; the object key is the rest of the path. */
export const SIGNED_PUT_PREFIX = "/uploads/put/";

/**
 * The Worker's own upload endpoint (local mode): checks the URL's signature in constant time, then its
 * expiry and the request's Content-Type, and streams the body into R2 with the owner recorded on the
 * object. Every refusal of the URL is a 403, as R2's S3 API would answer. A URL stores its object once:
 * a replay after a successful PUT (or during one) is a 409, so the bytes a task was made from cannot be
 * swapped under it; a PUT that failed leaves the URL usable for a retry.
 *
 * @example await receiveSignedPut(env, request) // { object_key, size }
 */
export async function receiveSignedPut(
  env: Env,
  request: Request,
): Promise<{ object_key: string; size: number }> {
  const url = new URL(request.url);
  const objectKey = url.pathname.slice(SIGNED_PUT_PREFIX.length);
  if (!url.pathname.startsWith(SIGNED_PUT_PREFIX) || !isUploadKey(objectKey)) {
    throw new ApiError("not_found", "no such upload URL");
  }
  const secret = workerConfig(env).uploadSigningSecret;
  if (!secret) throw new ApiError("forbidden", "this deployment takes uploads at R2 presigned URLs only");
  const signed = readSignedPut(objectKey, url.searchParams);
  if (!signed || !(await verifyUploadGrant(secret, signed.grant, signed.signature))) {
    throw new ApiError("forbidden", "upload URL signature does not match: use upload_url exactly as given");
  }
  const { grant } = signed;
  if (grant.expires * 1000 < Date.now()) {
    throw new ApiError("forbidden", "upload URL has expired: ask POST /uploads/presign for a new one");
  }
  const contentType = request.headers.get("content-type") ?? "";
  if (contentType !== grant.contentType) {
    throw new ApiError(
      "forbidden",
      `Content-Type must be "${grant.contentType}", the content_type given to /uploads/presign`,
    );
  }
  const length = declaredLength(request.headers);
  if (length !== null && length > MAX_MEDIA_BYTES) throw tooLarge(MAX_MEDIA_BYTES);
  if (!(await claimUploadPut(env, objectKey, grant.ownerKeyId))) {
    throw new ApiError(
      "conflict",
      "this upload_url has already been used: the object is stored; ask POST /uploads/presign for a new one to upload again",
    );
  }
  try {
    const { size } = await streamToR2(env.MEDIA, objectKey, request.body, {
      length,
      maxBytes: MAX_MEDIA_BYTES,
      httpMetadata: { contentType },
      customMetadata: { owner_key_id: grant.ownerKeyId },
    });
    return { object_key: objectKey, size };
  } catch (cause) {
    await releaseUploadPut(env, objectKey);
    throw cause;
  }
}
