import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ErrorEnvelope } from "../error-envelope.ts";
import type { ApiError } from "../errors.ts";

/**
 * The real-time translation API's error envelope (spec: realtime-translation.md): `{error: "<message>"}`,
 * plus our stable `code`. Errors are thrown as everywhere else (ApiError); its routers are made with
 * `translationEnvelope`.
 */

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

/** The real-time translation API's envelope. */
export const translationEnvelope: ErrorEnvelope = {
  schemas: ["TranslationError"],
  render: (c, error) =>
    c.json(translationErrorBody(error), error.status as ContentfulStatusCode, error.headers),
};
