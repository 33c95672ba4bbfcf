import type { MiddlewareHandler } from "hono";
import { identifyNode } from "../auth/node-identities.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";

/**
 * Inference nodes authenticate with a Bearer token: their own (`npm run nodes -- create`) or the
 * shared NODE_TOKEN where it is set. The node it names goes on the context as `node`. API keys never
 * open these routes. Every /internal route and node socket is behind this one middleware.
 */
export function nodeAuth(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const match = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "");
    const node = match?.[1] ? await identifyNode(c.env, match[1]) : null;
    if (!node) throw new ApiError("unauthorized", "internal routes need a valid, unrevoked node token");
    c.set("node", node);
    await next();
  };
}
