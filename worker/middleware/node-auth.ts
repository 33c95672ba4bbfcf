import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";

/**
 * Inference nodes authenticate with the shared NODE_TOKEN (Bearer), compared in constant time.
 * API keys never open these routes.
 */
export function nodeAuth(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const expected = c.env.NODE_TOKEN;
    const match = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "");
    if (!expected || !match?.[1] || !(await tokensEqual(match[1], expected))) {
      throw new ApiError("unauthorized", "internal routes need the node token");
    }
    await next();
  };
}

/** Constant-time comparison; hashing first makes the lengths equal without leaking them. */
async function tokensEqual(given: string, expected: string): Promise<boolean> {
  const encoder = new TextEncoder();
  const [a, b] = await Promise.all([
    crypto.subtle.digest("SHA-256", encoder.encode(given)),
    crypto.subtle.digest("SHA-256", encoder.encode(expected)),
  ]);
  return crypto.subtle.timingSafeEqual(a, b);
}
