/**
 * How a router's errors become responses. Each router is made with the envelope of its service
 * (`createRouter(envelope)`): the default `{detail, code}`, the content service's, OpenAI's or
 * real-time translation's. Domain code throws typed errors (ApiError) everywhere; this is the one
 * place they, and anything else thrown, are mapped to a status, logged when the server is at fault,
 * and rendered in the router's envelope.
 */
import type { Context, ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ConfigError } from "../platform/config.ts";
import type { AppEnv } from "./env.ts";
import { ApiError } from "./errors.ts";
import { malformedJsonError } from "./validation.ts";

export interface ErrorEnvelope {
  /** The OpenAPI schema its bodies have (what routes of the router declare for their errors). */
  readonly schemas: readonly string[];
  render(c: Context, error: ApiError): Response;
}

/** `{detail, code}` (the speech-to-text spec's shape), or the 422 HTTPValidationError. */
export const defaultEnvelope: ErrorEnvelope = {
  schemas: ["Error", "HTTPValidationError"],
  render: (c, error) => c.json(error.body(), error.status as ContentfulStatusCode, error.headers),
};

/** The error handler of a router speaking `envelope`. */
export function envelopeErrorHandler(envelope: ErrorEnvelope): ErrorHandler<AppEnv> {
  return (err, c) => {
    const error = toApiError(err, c.req.header("content-type") ?? "");
    if (error.status >= 500) {
      console.error(
        JSON.stringify({ request_id: c.get("requestId"), error: String(err), stack: (err as Error).stack }),
      );
    }
    return envelope.render(c, error);
  };
}

/** Maps anything thrown to a typed error: ours as is, Hono's by status, the rest as 500. */
function toApiError(err: unknown, contentType: string): ApiError {
  if (err instanceof ApiError) return err;
  // The message (logged) names the variable; clients only learn the service cannot serve.
  if (err instanceof ConfigError) return new ApiError("service_unavailable", "the service is misconfigured");
  const unavailable = platformUnavailable(err);
  if (unavailable) return unavailable;
  if (err instanceof HTTPException) {
    // Hono's body validators answer an unparsable body with a 400; a JSON body is the spec's 422.
    if (err.status === 400 && isJson(contentType)) return malformedJsonError();
    if (err.status === 413) return new ApiError("payload_too_large", err.message || "request body too large");
    if (err.status === 401) return new ApiError("unauthorized", err.message || "unauthorized");
    if (err.status === 415) {
      return new ApiError("unsupported_media_type", "this route does not take a body of that Content-Type");
    }
    return new ApiError("bad_request", err.message || "bad request");
  }
  return new ApiError("internal_error", "internal error");
}

/**
 * A Durable Object's infrastructure error: the object was resetting or moving (`retryable`), or too busy
 * (`overloaded`; Cloudflare's advice is not to retry it at once). Either passes; the caller is told
 * to come back (503 with Retry-After) instead of being answered a 500 for the platform's moment. Our
 * inference nodes send a task's outcome again on a 503 (inference-node/transient-retry.ts).
 */
function platformUnavailable(err: unknown): ApiError | null {
  if (!(err instanceof Error)) return null;
  const { retryable, overloaded } = err as Error & { retryable?: unknown; overloaded?: unknown };
  if (overloaded === true) {
    return new ApiError("service_unavailable", "the service is overloaded: try again shortly", {
      "retry-after": "5",
    });
  }
  if (retryable === true) {
    return new ApiError("service_unavailable", "the service was briefly unavailable: try again", {
      "retry-after": "1",
    });
  }
  return null;
}

/** Whether a Content-Type names JSON (`application/json`, `application/problem+json`, ...). */
function isJson(contentType: string): boolean {
  const type = contentType.split(";", 1)[0]?.trim().toLowerCase() ?? "";
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}
