import { z } from "@hono/zod-openapi";
import { ErrorBody, HTTPValidationError } from "../errors.ts";

/** OpenAPI pieces every public route repeats. */
export const errorContent = { "application/json": { schema: ErrorBody } };
export const validationContent = { "application/json": { schema: HTTPValidationError } };
export const apiKeySecurity: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKeyHeader: [] }];

export const unauthorized = { description: "missing or invalid API key", content: errorContent };
export const unprocessable = { description: "request validation failed", content: validationContent };
export const rateLimited = {
  description:
    "rate limit exceeded for this API key; on a task create with webhook_url, also: the key's webhook deliveries waiting on their receiver are at WEBHOOK_MAX_PENDING_PER_KEY",
  headers: { "Retry-After": { description: "seconds to wait before retrying", schema: { type: "integer" } } },
  content: errorContent,
} as const;
export const payloadTooLarge = {
  description: "the file exceeds 2 GB, or a JSON body its limit (64 KiB)",
  content: errorContent,
};

/** Paging of every list (history, notes): limit is clamped to 1..100 (not rejected), skip at least 0. */
export const PageQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .default(20)
    .transform((n) => Math.min(100, Math.max(1, n)))
    .openapi({ param: { name: "limit", in: "query" }, type: "integer", example: 20 }),
  skip: z.coerce
    .number()
    .int()
    .min(0)
    .default(0)
    .openapi({ param: { name: "skip", in: "query" }, type: "integer", example: 0 }),
});
