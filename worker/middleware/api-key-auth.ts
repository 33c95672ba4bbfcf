import type { MiddlewareHandler } from "hono";
import { findActiveKey } from "../auth/api-keys.ts";
import { keyFromHeaders } from "../auth/key-material.ts";
import { ACTING_USER_HEADER, keyPrincipal } from "../auth/principal.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";

/**
 * Requires a valid API key (a service key counts, acting as itself); puts its id and name on the context
 * as `apiKey`. A service key acts for a user only on the content and notes routes (principal-auth.ts):
 * anywhere else X-Voxedge-User is refused.
 */
export function apiKeyAuth(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.header(ACTING_USER_HEADER) !== undefined) {
      throw new ApiError(
        "forbidden",
        "X-Voxedge-User is accepted only on the content and notes routes; send this request without it",
      );
    }
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
    c.set("apiKey", { id: apiKey.id, name: apiKey.name });
    c.set("principal", keyPrincipal(apiKey));
    await next();
  };
}
