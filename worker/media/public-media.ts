import { workerConfig } from "../../platform/config.ts";
import { ApiError } from "../errors.ts";
import { isServableKey } from "../ingest/object-keys.ts";
import { contentDisposition, type RequestedDisposition } from "./content-disposition.ts";
import { servedContentType, servedSecurityPolicy } from "./content-types.ts";
import { mediaUrlProblem } from "./media-signature.ts";
import { streamObject } from "./r2-stream.ts";

/** Where GET /media lives; the object key is the rest of the path. */
export const MEDIA_PREFIX = "/media/";

const REFUSALS = {
  unsigned: "this media link is not signed: use the audio_url or result URL the API returned",
  forged: "the media link's signature does not match",
  expired: "the media link has expired: read the task again for a fresh one",
} as const;

/** What a GET /media asks for besides its object: a byte range, and how the file should be presented. */
export interface MediaRequest {
  url: string;
  range: string | null;
  disposition: RequestedDisposition | null;
}

/**
 * GET /media: an uploaded object or a task's output, streamed with Range. No API key (a browser
 * element cannot send one). By default no signature either, as the spec says: the object key's random
 * UUID is the capability, and a signed link's query is simply not needed. With MEDIA_REQUIRE_SIGNATURE
 * the URL's signature and expiry must authorise it (403 otherwise). Only keys of exactly the minted
 * shapes are served, read from the raw path: anything else, `..` and percent-encoded slashes included,
 * is a 404.
 *
 * @example return serveMedia(env, { url: c.req.url, range: c.req.header("range") ?? null, disposition: null })
 */
export async function serveMedia(env: Env, request: MediaRequest): Promise<Response> {
  const url = new URL(request.url);
  const objectKey = url.pathname.slice(MEDIA_PREFIX.length);
  if (!url.pathname.startsWith(MEDIA_PREFIX) || !isServableKey(objectKey)) {
    throw new ApiError("not_found", "media not found");
  }
  const { mediaRequireSignature, uploadSigningSecret: secret } = workerConfig(env);
  if (mediaRequireSignature) {
    // Nothing can be signed without the secret, so nothing can be served.
    if (!secret) throw new ApiError("not_found", "media not found");
    const problem = await mediaUrlProblem(secret, objectKey, url.searchParams, Date.now() / 1000);
    if (problem) throw new ApiError("forbidden", REFUSALS[problem]);
  }
  const response = await streamObject(env.MEDIA, objectKey, request.range);
  const type = servedContentType(response.headers.get("Content-Type"));
  response.headers.set("Content-Type", type);
  response.headers.set("Content-Disposition", contentDisposition(objectKey, type, request.disposition));
  response.headers.set("X-Content-Type-Options", "nosniff");
  response.headers.set("Content-Security-Policy", servedSecurityPolicy(type));
  return response;
}
