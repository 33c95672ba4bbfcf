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

/** The subprotocol prefix a browser puts its credential in (browsers cannot set headers on a WebSocket). */
export const REALTIME_KEY_PROTOCOL = "openai-insecure-api-key.";
/** What a realtime socket's credential looks like when it is a socket token, not an API key. */
const SOCKET_TOKEN_PREFIX = "vxt1.";

/**
 * Authentication of /v1/realtime as OpenAI's clients send it: `Authorization: Bearer` (the `openai`
 * package's server-side client) or, from a browser, the subprotocol `openai-insecure-api-key.<value>`;
 * the value is an API key or a client secret (a socket token of scope `realtime`, minted by
 * POST /v1/realtime/client_secrets), told apart by the token's prefix.
 */
export function realtimeKeyAuth(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const credential =
      keyFromHeaders(c.req.raw.headers) ?? realtimeProtocolKey(c.req.header("sec-websocket-protocol"));
    if (!credential) {
      throw new ApiError(
        "unauthorized",
        "missing credential: send Authorization: Bearer <API key or client secret>, or the subprotocol " +
          `${REALTIME_KEY_PROTOCOL}<client secret> from a browser`,
        challenge,
      );
    }
    if (credential.startsWith(SOCKET_TOKEN_PREFIX)) {
      c.set("apiKey", await keyOfToken(c.env, credential, "realtime"));
    } else {
      const apiKey = await findActiveKey(c.env, credential);
      if (!apiKey) throw new ApiError("unauthorized", "invalid or revoked API key", challenge);
      c.set("apiKey", apiKey);
    }
    await next();
  };
}

/** The credential in a `Sec-WebSocket-Protocol` list, if the client put one there. */
export function realtimeProtocolKey(header: string | undefined): string | null {
  for (const protocol of (header ?? "").split(",")) {
    const trimmed = protocol.trim();
    if (trimmed.startsWith(REALTIME_KEY_PROTOCOL)) return trimmed.slice(REALTIME_KEY_PROTOCOL.length) || null;
  }
  return null;
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
