import { z } from "@hono/zod-openapi";

/** Stable machine-readable error codes; every error body carries one. */
export const ErrorCode = z.enum([
  "bad_request",
  "unauthorized",
  "forbidden",
  "not_found",
  "conflict",
  "gone",
  "payload_too_large",
  "unsupported_media_type",
  "validation_error",
  "rate_limited",
  "client_closed",
  "service_unavailable",
  "gateway_timeout",
  "internal_error",
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** One item of an HTTPValidationError, as the spec defines it. */
export const ValidationIssue = z
  .object({
    loc: z.array(z.union([z.string(), z.number()])),
    msg: z.string(),
    type: z.string(),
    input: z.unknown().optional(),
    ctx: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: "ValidationError" });
export type ValidationIssue = z.infer<typeof ValidationIssue>;

export const HTTPValidationError = z
  .object({ detail: z.array(ValidationIssue), code: z.literal("validation_error") })
  .meta({ id: "HTTPValidationError" });

/** The body of every other error: a human message in `detail` and a stable `code`. */
export const ErrorBody = z.object({ detail: z.string(), code: ErrorCode }).meta({ id: "Error" });
export type ErrorBody = z.infer<typeof ErrorBody>;

const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_error: 422,
  rate_limited: 429,
  /** nginx's 499: the caller went away before the answer (a cancelled synchronous task). */
  client_closed: 499,
  service_unavailable: 503,
  gateway_timeout: 504,
  internal_error: 500,
};

/**
 * A typed failure. Domain code throws these; the app's one error handler turns them into responses.
 *
 * @example throw new ApiError("not_found", "task not found");
 */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly issues: ValidationIssue[] = [],
  ) {
    super(message);
    this.status = STATUS[code];
  }

  body(): ErrorBody | z.infer<typeof HTTPValidationError> {
    if (this.code === "validation_error") return { detail: this.issues, code: "validation_error" };
    return { detail: this.message, code: this.code };
  }
}

/** Builds the 422 error for a list of issues. */
export function validationError(issues: ValidationIssue[]): ApiError {
  return new ApiError("validation_error", "request validation failed", {}, issues);
}
