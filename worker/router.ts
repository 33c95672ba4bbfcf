import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { validationError } from "./errors.ts";
import { toValidationIssues } from "./validation.ts";

/**
 * A router whose validation failures become the spec's 422 HTTPValidationError. Every resource
 * router is made here so the hook is installed once.
 */
export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const input = (result as { data?: unknown }).data;
        throw validationError(toValidationIssues(result.error, result.target, input));
      }
    },
  });
}
