import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiError } from "../errors.ts";

/**
 * The real-time translation API's error envelope (spec: realtime-translation.md): `{error: "<message>"}`,
 * plus our stable `code`. Errors are thrown as everywhere else (ApiError); the app's one error handler
 * renders those of requests under /api/v1 with `translationErrorResponse`.
 */

/** Path prefix of the real-time translation API. */
export const TRANSLATION_PREFIX = "/api/v1";

/** Whether errors of a request to `path` are rendered in the translation API's envelope. */
export function usesTranslationEnvelope(path: string): boolean {
  return path === TRANSLATION_PREFIX || path.startsWith(`${TRANSLATION_PREFIX}/`);
}

/**
 * The body of an error: a validation failure lists each field's problem in the one message.
 *
 * @example translationErrorBody(new ApiError("not_found", "conversation not found or expired"))
 * // { error: "conversation not found or expired", code: "not_found" }
 */
export function translationErrorBody(error: ApiError): { error: string; code: string } {
  if (error.code !== "validation_error" || error.issues.length === 0) {
    return { error: error.message, code: error.code };
  }
  const message = error.issues
    .map((issue) => {
      const field = issue.loc.slice(1).join(".");
      return field ? `${field}: ${issue.msg}` : issue.msg;
    })
    .join("; ");
  return { error: message, code: error.code };
}

/** Renders an error of an /api/v1 request: the envelope, the error's status and headers. */
export function translationErrorResponse(c: Context, error: ApiError): Response {
  return c.json(translationErrorBody(error), error.status as ContentfulStatusCode, error.headers);
}
