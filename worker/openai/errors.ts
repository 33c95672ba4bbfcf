import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ErrorEnvelope } from "../error-envelope.ts";
import { ApiError, type ErrorCode } from "../errors.ts";
import type { OpenAIErrorBody } from "../schemas/openai.ts";

/**
 * OpenAI's error envelope for the compatible API. Errors are thrown as everywhere else (ApiError);
 * the compatible API's routers are made with `openAIEnvelope`, so theirs render in OpenAI's shape.
 */

export interface OpenAIErrorFields {
  /** OpenAI's `type`; defaults by status (invalid_request_error, requests, server_error). */
  type?: string;
  /** The request field at fault, if one. */
  param?: string | null;
  /** OpenAI's machine `code`, if one. */
  openaiCode?: string | null;
  /** Sent as `x-should-retry`; defaults to what the official SDK does for the status. */
  retryable?: boolean;
}

/**
 * An ApiError with OpenAI envelope fields. Thrown by the /v1 domain code; elsewhere it is an ApiError.
 *
 * @example throw new OpenAIError("bad_request", "response_format must be one of ...", { param: "response_format" });
 */
export class OpenAIError extends ApiError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly fields: OpenAIErrorFields = {},
    headers: Record<string, string> = {},
  ) {
    super(code, message, headers);
  }
}

/**
 * OpenAI's answer to a transcription or translation request without `file`, word for word as its
 * API sends it (400, `param` null): clients that match on it see the same thing here.
 */
export function missingFileError(): OpenAIError {
  return new OpenAIError(
    "bad_request",
    "1 validation error for Request\nbody -> file\n  field required (type=value_error.missing)",
    { param: null },
  );
}

/** Defaults per error code: OpenAI's type and code for what our code means. */
const DEFAULTS: Partial<Record<ErrorCode, { type: string; code: string | null; param?: string }>> = {
  unauthorized: { type: "invalid_request_error", code: "invalid_api_key" },
  payload_too_large: { type: "invalid_request_error", code: null, param: "file" },
  rate_limited: { type: "requests", code: "rate_limit_exceeded" },
  service_unavailable: { type: "server_error", code: "service_unavailable" },
  internal_error: { type: "server_error", code: null },
};

/** What the official SDK retries on its own (openai-node `shouldRetry`). */
const sdkRetries = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

export interface OpenAIWireError {
  status: number;
  body: OpenAIErrorBody;
  retryable: boolean;
}

/**
 * The OpenAI rendering of an error: status, envelope and whether a client should retry.
 *
 * @example toOpenAIWire(new ApiError("unauthorized", "invalid or revoked API key")).body.error.code // "invalid_api_key"
 */
export function toOpenAIWire(error: ApiError): OpenAIWireError {
  const fields = error instanceof OpenAIError ? error.fields : {};
  const status = error.status;
  const defaults = DEFAULTS[error.code] ?? { type: "invalid_request_error", code: null };
  let message = error.message;
  let param = fields.param ?? defaults.param ?? null;
  if (error.code === "validation_error" && error.issues.length > 0) {
    message = error.issues.map((issue) => `${fieldName(issue.loc) ?? "body"}: ${issue.msg}`).join("; ");
    param = fields.param ?? fieldName(error.issues[0]?.loc ?? []);
  }
  return {
    status,
    body: {
      error: {
        message,
        type: fields.type ?? (status >= 500 ? "server_error" : defaults.type),
        param,
        code: fields.openaiCode !== undefined ? fields.openaiCode : defaults.code,
      },
    },
    retryable: fields.retryable ?? sdkRetries(status),
  };
}

/** `loc` of a validation issue as a field name: ["body", "timestamp_granularities", 0] -> "timestamp_granularities". */
function fieldName(loc: readonly (string | number)[]): string | null {
  const names = loc.slice(1).filter((part): part is string => typeof part === "string");
  return names.length > 0 ? names.join(".") : null;
}

/** OpenAI's envelope, with the error's headers and `x-should-retry`. */
export const openAIEnvelope: ErrorEnvelope = {
  schemas: ["OpenAIError"],
  render: (c, error) => {
    const wire = toOpenAIWire(error);
    return c.json(wire.body, wire.status as ContentfulStatusCode, {
      ...error.headers,
      "x-should-retry": String(wire.retryable),
    });
  },
};
