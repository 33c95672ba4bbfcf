import { ApiError } from "../errors.ts";
import { isUploadKey } from "../ingest/object-keys.ts";
import { playableContentType } from "./content-types.ts";
import { streamObject } from "./r2-stream.ts";

/** Where GET /media lives; the object key is the rest of the path. */
export const MEDIA_PREFIX = "/media/";

/**
 * GET /media: an uploaded object, streamed with Range. No API key by design (the key's UUID is the
 * secret), so only keys of exactly the upload shape are served, read from the raw path: anything else,
 * `..` and percent-encoded slashes included, is a 404.
 *
 * @example return serveMedia(env, c.req.url, c.req.header("range") ?? null)
 */
export async function serveMedia(env: Env, requestUrl: string, range: string | null): Promise<Response> {
  const path = new URL(requestUrl).pathname;
  const objectKey = path.slice(MEDIA_PREFIX.length);
  if (!path.startsWith(MEDIA_PREFIX) || !isUploadKey(objectKey))
    throw new ApiError("not_found", "media not found");
  const response = await streamObject(env.MEDIA, objectKey, range);
  response.headers.set("Content-Type", playableContentType(response.headers.get("Content-Type")));
  response.headers.set("X-Content-Type-Options", "nosniff");
  return response;
}
