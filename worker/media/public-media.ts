import { workerConfig } from "../../platform/config.ts";
import { ApiError } from "../errors.ts";
import { isServableKey } from "../ingest/object-keys.ts";
import { servedContentType } from "./content-types.ts";
import { mediaUrlProblem } from "./media-signature.ts";
import { streamObject } from "./r2-stream.ts";

/** Where GET /media lives; the object key is the rest of the path. */
export const MEDIA_PREFIX = "/media/";

const REFUSALS = {
  unsigned: "this media link is not signed: use the audio_url or result URL the API returned",
  forged: "the media link's signature does not match",
  expired: "the media link has expired: read the task again for a fresh one",
} as const;

/**
 * GET /media: an uploaded object or a task's output, streamed with Range. No API key (a browser
 * element cannot send one): the URL's signature and expiry authorise it (403 otherwise). Only keys of
 * exactly the minted shapes are served, read from the raw path: anything else, `..` and
 * percent-encoded slashes included, is a 404.
 *
 * @example return serveMedia(env, c.req.url, c.req.header("range") ?? null)
 */
export async function serveMedia(env: Env, requestUrl: string, range: string | null): Promise<Response> {
  const url = new URL(requestUrl);
  const objectKey = url.pathname.slice(MEDIA_PREFIX.length);
  const secret = workerConfig(env).uploadSigningSecret;
  if (!url.pathname.startsWith(MEDIA_PREFIX) || !isServableKey(objectKey) || !secret) {
    throw new ApiError("not_found", "media not found");
  }
  const problem = await mediaUrlProblem(secret, objectKey, url.searchParams, Date.now() / 1000);
  if (problem) throw new ApiError("forbidden", REFUSALS[problem]);
  const response = await streamObject(env.MEDIA, objectKey, range);
  response.headers.set("Content-Type", servedContentType(response.headers.get("Content-Type")));
  response.headers.set("X-Content-Type-Options", "nosniff");
  return response;
}
