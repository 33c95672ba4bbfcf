import { publicBaseUrl, workerConfig } from "../../platform/config.ts";
import { ApiError } from "../errors.ts";
import type { PresignResponse } from "../schemas/uploads.ts";
import { newObjectKey } from "./object-keys.ts";
import { presignR2 } from "./s3-presign.ts";
import { recordUpload } from "./upload-registry.ts";
import { signedPutUrl } from "./upload-signature.ts";

export interface PresignInput {
  ownerKeyId: string;
  filename: string;
  contentType: string;
  /** The request being answered: its origin serves the signed PUT route when PUBLIC_BASE_URL is unset. */
  requestUrl: string;
}

/**
 * Hands out a fresh object key and a URL to PUT its bytes to: a SigV4 URL for R2's S3 API when
 * credentials are configured, else the Worker's own signed PUT route. The key is recorded as the
 * caller's, for POST /transcribe/object. Neither way configured is a 503.
 *
 * @example await presignUpload(env, { ownerKeyId, filename: "talk.mp3", contentType: "audio/mpeg", requestUrl })
 */
export async function presignUpload(env: Env, input: PresignInput): Promise<PresignResponse> {
  const objectKey = newObjectKey(input.filename);
  const expiresIn = workerConfig(env).presignTtlSec;
  const uploadUrl = await uploadUrlFor(env, input, objectKey, expiresIn);
  await recordUpload(env, { objectKey, ownerKeyId: input.ownerKeyId, contentType: input.contentType });
  return { object_key: objectKey, upload_url: uploadUrl, expires_in: expiresIn };
}

async function uploadUrlFor(
  env: Env,
  input: PresignInput,
  objectKey: string,
  expiresIn: number,
): Promise<string> {
  const s3 = workerConfig(env).r2S3;
  if (s3) return presignR2(s3, objectKey, { method: "PUT", expiresIn, contentType: input.contentType });
  const secret = workerConfig(env).uploadSigningSecret;
  if (!secret) {
    throw new ApiError(
      "service_unavailable",
      "uploads are not configured: set R2 S3 credentials or UPLOAD_SIGNING_SECRET",
    );
  }
  return signedPutUrl(publicBaseUrl(env, input.requestUrl), secret, {
    objectKey,
    contentType: input.contentType,
    ownerKeyId: input.ownerKeyId,
    expires: Math.floor(Date.now() / 1000) + expiresIn,
  });
}
