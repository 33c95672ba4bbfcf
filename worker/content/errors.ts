import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError, type ErrorCode } from "../errors.ts";
import type { ContentErrorBody } from "../schemas/content-common.ts";

/**
 * The content service's error envelope (notes, catalogs, /v2/create, task polling):
 * `{error, error_key, message}`, the same three fields a failed task carries, so a client reads one
 * shape. `error_key` is the stable machine-readable part; the app's one error handler renders every
 * error of these paths this way.
 */

/** Paths of the content service; everything else under /v1 is the OpenAI-compatible API. */
const CONTENT_PREFIXES = [
  "/v1/notes",
  "/v1/community",
  "/v1/voices",
  "/v1/backgrounds",
  "/v1/templates",
  "/v1/catalog",
  "/v1/create",
  "/v2/create",
];

/** Whether errors of a request to `path` use the content envelope. */
export function usesContentEnvelope(path: string): boolean {
  return CONTENT_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/**
 * An ApiError with its own `error_key` (a request error the content API names precisely).
 *
 * @example throw new ContentApiError("bad_request", "unknown_voice", "voice_id \"x\" is not in GET /v1/voices");
 */
export class ContentApiError extends ApiError {
  constructor(
    code: ErrorCode,
    readonly errorKey: string,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(code, message, headers);
  }
}

/** The envelope of an error: a ContentApiError's key, else the error's code (validation issues listed). */
export function toContentBody(error: ApiError): ContentErrorBody {
  const errorKey = error instanceof ContentApiError ? error.errorKey : error.code;
  const message =
    error.code === "validation_error" && error.issues.length > 0
      ? error.issues.map((issue) => `${issue.loc.slice(1).join(".") || "body"}: ${issue.msg}`).join("; ")
      : error.message;
  return { error: errorKey.replaceAll("_", " "), error_key: errorKey, message };
}

/** Renders an error of a content-service request. */
export function contentErrorResponse(c: Context, error: ApiError): Response {
  return c.json(toContentBody(error), error.status as ContentfulStatusCode, error.headers);
}
