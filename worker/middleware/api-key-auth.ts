import type { MiddlewareHandler } from "hono";
import { findActiveKey } from "../auth/api-keys.ts";
import { keyFromHeaders } from "../auth/key-material.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";

/** Requires a valid API key; puts its id and name on the context as `apiKey`. */
export function apiKeyAuth(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = keyFromHeaders(c.req.raw.headers);
    if (!key) {
      throw new ApiError("unauthorized", "missing API key: send Authorization: Bearer <key> or x-api-key", {
        "WWW-Authenticate": "Bearer",
      });
    }
    const apiKey = await findActiveKey(c.env, key);
    if (!apiKey) {
      throw new ApiError("unauthorized", "invalid or revoked API key", { "WWW-Authenticate": "Bearer" });
    }
    c.set("apiKey", apiKey);
    await next();
  };
}
