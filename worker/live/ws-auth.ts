import type { MiddlewareHandler } from "hono";
import { findActiveKey } from "../auth/api-keys.ts";
import { keyFromHeaders } from "../auth/key-material.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";

/**
 * API-key check of the /ws handshake: the key may also come as the `api_key` query parameter, since a
 * browser's WebSocket cannot set headers. A bad or missing key is a 401 before any upgrade.
 */
export function liveKeyAuth(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = keyFromHeaders(c.req.raw.headers) ?? (c.req.query("api_key")?.trim() || null);
    if (!key) {
      throw new ApiError(
        "unauthorized",
        "missing API key: send Authorization: Bearer <key>, x-api-key, or the api_key query parameter",
        { "WWW-Authenticate": "Bearer" },
      );
    }
    const apiKey = await findActiveKey(c.env, key);
    if (!apiKey) {
      throw new ApiError("unauthorized", "invalid or revoked API key", { "WWW-Authenticate": "Bearer" });
    }
    c.set("apiKey", apiKey);
    await next();
  };
}
