import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { type ErrorEnvelope, envelopeErrorHandler } from "./error-envelope.ts";
import { validationError } from "./errors.ts";
import { toValidationIssues } from "./validation.ts";

const envelopes = new WeakMap<OpenAPIHono<AppEnv>, ErrorEnvelope>();

/**
 * A router whose validation failures become the spec's 422 HTTPValidationError and whose errors are
 * rendered in `envelope`, its service's error shape. Every resource router is made here, and says its
 * envelope here: a new router, wherever it is mounted, answers in the shape it declared.
 */
export function createRouter(envelope: ErrorEnvelope): OpenAPIHono<AppEnv> {
  const router = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const input = (result as { data?: unknown }).data;
        throw validationError(toValidationIssues(result.error, result.target, input));
      }
    },
  });
  router.onError(envelopeErrorHandler(envelope));
  envelopes.set(router, envelope);
  return router;
}

/** The envelope a router was made with. */
export function envelopeOf(router: OpenAPIHono<AppEnv>): ErrorEnvelope | undefined {
  return envelopes.get(router);
}
