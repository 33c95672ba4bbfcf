import type { MiddlewareHandler } from "hono";
import { workerConfig } from "../../platform/config.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";

/**
 * Counts the request against the ENQUEUE_LIMITER binding, keyed by the calling API key's id (so it must
 * run after apiKeyAuth). Over the limit is a 429 with Retry-After: the binding's period.
 */
export function enqueueRateLimit(): MiddlewareHandler<AppEnv> {
  return perKeyRateLimit((env) => env.ENQUEUE_LIMITER);
}

/** The same for POST /api/v1/session/create, on its own SESSION_LIMITER binding. */
export function sessionRateLimit(): MiddlewareHandler<AppEnv> {
  return perKeyRateLimit((env) => env.SESSION_LIMITER);
}

function perKeyRateLimit(limiter: (env: Env) => RateLimit): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const { success } = await limiter(c.env).limit({ key: c.get("apiKey").id });
    if (!success) {
      const period = workerConfig(c.env).rateLimitPeriodSec;
      throw new ApiError("rate_limited", `too many requests for this API key; retry in ${period} s`, {
        "Retry-After": String(period),
      });
    }
    await next();
  };
}
