import type { MiddlewareHandler } from "hono";
import { workerConfig } from "../../platform/config.ts";
import { findActiveKey, findActiveKeyById } from "../auth/api-keys.ts";
import { keyFromHeaders } from "../auth/key-material.ts";
import { verifySocketToken } from "../auth/socket-token.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import type { SocketTokenScope } from "../schemas/auth.ts";

const challenge = { "WWW-Authenticate": "Bearer" };

/**
 * Authentication of a live socket's handshake (/ws: scope `live`, /api/v1/ws/single: `translate`),
 * before any upgrade: an API key as on REST routes (headers, or the `api_key` query parameter, since a
 * browser's WebSocket cannot set headers), or a short-lived socket token of this scope in `token`
 * (POST /v1/auth/tokens), which keeps the key itself out of URLs. A token's key must still be live;
 * its streams count as that key's. Anything else is a 401.
 */
export function liveKeyAuth(scope: SocketTokenScope): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = c.req.query("token");
    c.set(
      "apiKey",
      token === undefined ? await keyOfRequest(c.env, c.req.raw) : await keyOfToken(c.env, token, scope),
    );
    await next();
  };
}

async function keyOfRequest(env: Env, request: Request) {
  const key =
    keyFromHeaders(request.headers) ?? (new URL(request.url).searchParams.get("api_key")?.trim() || null);
  if (!key) {
    throw new ApiError(
      "unauthorized",
      "missing API key: send Authorization: Bearer <key>, x-api-key, the api_key query parameter, " +
        "or a socket token (POST /v1/auth/tokens) as the token query parameter",
      challenge,
    );
  }
  const apiKey = await findActiveKey(env, key);
  if (!apiKey) throw new ApiError("unauthorized", "invalid or revoked API key", challenge);
  return apiKey;
}

async function keyOfToken(env: Env, token: string, scope: SocketTokenScope) {
  const secret = workerConfig(env).uploadSigningSecret;
  const claims = secret && (await verifySocketToken(secret, token, scope, Math.floor(Date.now() / 1000)));
  const apiKey = claims ? await findActiveKeyById(env, claims.keyId) : null;
  if (!apiKey) {
    throw new ApiError(
      "unauthorized",
      `invalid, expired or revoked socket token for scope ${scope}`,
      challenge,
    );
  }
  return apiKey;
}
