import type { MiddlewareHandler } from "hono";
import { workerConfig } from "../../platform/config.ts";
import { findActiveKey } from "../auth/api-keys.ts";
import { keyFromHeaders } from "../auth/key-material.ts";
import {
  ACTING_USER_HEADER,
  ensureUserOwner,
  keyPrincipal,
  type Principal,
  userOwnerId,
  validUserId,
} from "../auth/principal.ts";
import { looksLikeJwt, verifyUserJwt } from "../auth/user-jwt.ts";
import { ContentApiError } from "../content/errors.ts";
import type { AppEnv } from "../env.ts";

const CHALLENGE = { "WWW-Authenticate": "Bearer" };

const unauthorized = (errorKey: string, message: string) =>
  new ContentApiError("unauthorized", errorKey, message, CHALLENGE);

/**
 * The content and notes routes' authentication (content spec, Authentication: "the create endpoints
 * also accept a user JWT or a service key"): an API key, a user JWT (when the deployment accepts them),
 * or a service key, which acts for one of its users when it names them in X-Voxedge-User. Puts the
 * `principal` on the context (and `apiKey`, the key or user the request is logged and limited as).
 * A refusal is a 401 whose error_key says which check failed, never which credential would have worked.
 */
export function principalAuth(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const credential = keyFromHeaders(c.req.raw.headers);
    if (!credential) {
      throw unauthorized(
        "unauthorized",
        "send an API key, a service key or a user JWT as Authorization: Bearer",
      );
    }
    const actingFor = c.req.header(ACTING_USER_HEADER);
    const principal = looksLikeJwt(credential)
      ? await jwtPrincipal(c.env, credential, actingFor)
      : await keyOrServicePrincipal(c.env, credential, actingFor);
    if (principal.ownerId !== principal.keyId) await ensureUserOwner(c.env, principal.userId);
    c.set("principal", principal);
    c.set("apiKey", { id: principal.ownerId, name: principal.via });
    if (principal.via === "service_key" && principal.ownerId !== principal.keyId) {
      // Every action a service key takes for a user is on record with both ids.
      console.log(
        JSON.stringify({
          event: "service_key_acting",
          request_id: c.get("requestId"),
          service_key_id: principal.keyId,
          user_id: principal.userId,
          method: c.req.method,
          path: c.req.routePath,
        }),
      );
    }
    await next();
  };
}

async function jwtPrincipal(env: Env, token: string, actingFor: string | undefined): Promise<Principal> {
  if (actingFor !== undefined) throw actingNeedsServiceKey();
  const settings = workerConfig(env).userJwt;
  if (!settings) throw unauthorized("user_jwt_not_enabled", "this deployment does not accept user JWTs");
  const outcome = await verifyUserJwt(token, settings);
  if (!outcome.ok) throw unauthorized(outcome.refusal, outcome.message);
  return { ownerId: userOwnerId(outcome.subject), userId: outcome.subject, via: "user_jwt", keyId: null };
}

async function keyOrServicePrincipal(
  env: Env,
  secret: string,
  actingFor: string | undefined,
): Promise<Principal> {
  const key = await findActiveKey(env, secret);
  if (!key) throw unauthorized("unauthorized", "invalid or revoked API key");
  if (actingFor === undefined) return keyPrincipal(key);
  if (key.kind !== "service") throw actingNeedsServiceKey();
  if (!validUserId(actingFor)) {
    throw new ContentApiError(
      "bad_request",
      "invalid_user_header",
      "X-Voxedge-User must be a user id of 1 to 128 printable ASCII characters",
    );
  }
  return { ownerId: userOwnerId(actingFor), userId: actingFor, via: "service_key", keyId: key.id };
}

function actingNeedsServiceKey(): ContentApiError {
  return new ContentApiError(
    "forbidden",
    "user_header_not_allowed",
    "only a service key may act for a user (X-Voxedge-User); send it without the header",
  );
}
