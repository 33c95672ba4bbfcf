import { publicBaseUrl, workerConfig } from "../../platform/config.ts";
import { presignR2 } from "../ingest/s3-presign.ts";

/** Makes a link a client can fetch an uploaded object from. */
export type AudioUrlMinter = (objectKey: string) => Promise<string>;

/**
 * The audio_url minter for one request: a presigned R2 GET when R2's S3 API is configured, else the
 * public GET /media route (absolute, from PUBLIC_BASE_URL or the request's origin).
 *
 * @example const mint = audioUrlMinter(env, c.req.url); await mint("uploads/…/talk.mp3")
 */
export function audioUrlMinter(env: Env, requestUrl: string): AudioUrlMinter {
  const { r2S3: s3, presignTtlSec } = workerConfig(env);
  if (s3) return (objectKey) => presignR2(s3, objectKey, { method: "GET", expiresIn: presignTtlSec });
  const base = publicBaseUrl(env, requestUrl);
  return async (objectKey) => `${base}/media/${objectKey}`;
}
