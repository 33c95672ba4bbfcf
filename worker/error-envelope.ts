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

/** Whether a Content-Type names JSON (`application/json`, `application/problem+json`, ...). */
function isJson(contentType: string): boolean {
  const type = contentType.split(";", 1)[0]?.trim().toLowerCase() ?? "";
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}
