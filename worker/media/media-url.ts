import { publicBaseUrl, workerConfig } from "../../platform/config.ts";
import { presignR2 } from "../ingest/s3-presign.ts";
import { signedMediaUrl } from "./media-signature.ts";

/** Makes a link a browser can fetch a stored object from (no headers), or null when none can be signed. */
export type MediaUrlMinter = (objectKey: string) => Promise<string | null>;

/**
 * The minter for one request: a presigned R2 GET when R2's S3 API is configured, else a signed GET
 * /media URL (absolute, from PUBLIC_BASE_URL or the request's origin). Both expire after
 * PRESIGN_TTL_SEC and serve Range. Without either (no S3 credentials, no UPLOAD_SIGNING_SECRET)
 * nothing can be signed and links are null.
 *
 * @example const mint = mediaUrlMinter(env, c.req.url); await mint("uploads/…/talk.mp3")
 */
export function mediaUrlMinter(env: Env, requestUrl: string): MediaUrlMinter {
  const { r2S3: s3, presignTtlSec, uploadSigningSecret } = workerConfig(env);
  if (s3) return (objectKey) => presignR2(s3, objectKey, { method: "GET", expiresIn: presignTtlSec });
  if (!uploadSigningSecret) return async () => null;
  const base = publicBaseUrl(env, requestUrl);
  return (objectKey) =>
    signedMediaUrl(base, uploadSigningSecret, objectKey, Math.floor(Date.now() / 1000) + presignTtlSec);
}
