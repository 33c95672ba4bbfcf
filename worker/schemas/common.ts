import { ErrorBody, HTTPValidationError } from "../errors.ts";

/** OpenAPI pieces every public route repeats. */
export const errorContent = { "application/json": { schema: ErrorBody } };
export const validationContent = { "application/json": { schema: HTTPValidationError } };
export const apiKeySecurity: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKeyHeader: [] }];

export const unauthorized = { description: "missing or invalid API key", content: errorContent };
export const unprocessable = { description: "request validation failed", content: validationContent };
export const rateLimited = {
  description: "rate limit exceeded for this API key",
  headers: { "Retry-After": { description: "seconds to wait before retrying", schema: { type: "integer" } } },
  content: errorContent,
} as const;
export const payloadTooLarge = {
  description: "the file exceeds 2 GB, or a JSON body its limit (64 KiB)",
  content: errorContent,
};
