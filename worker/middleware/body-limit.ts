import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";

/** Largest JSON body of the small create and enqueue requests (a URL, a prompt, a few short fields). */
export const SMALL_JSON_MAX_BYTES = 64 * 1024;
/**
 * Largest JSON body of POST /v1/notes: 100,000 characters of text, every one of which JSON may spell as
 * a six-byte `\uXXXX` escape, with room for the other fields.
 */
export const NOTE_JSON_MAX_BYTES = 1024 * 1024;

/**
 * Refuses a request body over `maxBytes` with 413 before it is parsed: a declared Content-Length over
 * it at once, a body without one as soon as the bytes read pass it (never more than `maxBytes` held).
 * Runs after authentication, so an anonymous caller never gets a body read.
 *
 * @example middleware: [apiKeyAuth(), enqueueRateLimit(), jsonBodyLimit()] as const
 */
export function jsonBodyLimit(maxBytes = SMALL_JSON_MAX_BYTES): MiddlewareHandler<AppEnv> {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new ApiError("payload_too_large", `the request body is larger than ${maxBytes} bytes`);
    },
  });
}
