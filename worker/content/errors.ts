import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ErrorEnvelope } from "../error-envelope.ts";
import { ApiError, type ErrorCode } from "../errors.ts";
import type { ContentErrorBody } from "../schemas/content-common.ts";

/**
 * The content service's error envelope (notes, catalogs, /v2/create, task polling):
 * `{error, error_key, message}`, the same three fields a failed task carries, so a client reads one
 * shape. `error_key` is the stable machine-readable part; the content routers are made with
 * `contentEnvelope`, so their errors render this way.
 */

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

/** The content service's envelope. */
export const contentEnvelope: ErrorEnvelope = {
  schemas: ["ContentError"],
  render: (c, error) => c.json(toContentBody(error), error.status as ContentfulStatusCode, error.headers),
};
