import type { MiddlewareHandler } from "hono";
import type { HostProof } from "../../durable-objects/rooms/host-controls.ts";
import { resumeHash } from "../../durable-objects/rooms/room-identity.ts";
import { translationRoom } from "../../platform/stubs.ts";
import type { HostControl, HostControlResult } from "../../protocol/rooms.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { apiKeyAuth } from "../middleware/api-key-auth.ts";
import { isConversationId } from "./sessions.ts";

/**
 * A room's host controls over REST (POST /api/v1/session/{conversation_id}/control). The host is
 * whoever presents the room's host token (header X-Host-Token, from the create response) or the API
 * key that created the room. A key that did not create it, or an unknown room, gets 404 (nothing is
 * said about rooms of other keys); a wrong host token gets 403.
 */

export const HOST_TOKEN_HEADER = "x-host-token";
const HOST_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The host token when one is sent, else the API key (its usual checks and 401s). */
export function hostAuth(): MiddlewareHandler<AppEnv> {
  const keyAuth = apiKeyAuth();
  return async (c, next) => {
    if (c.req.header(HOST_TOKEN_HEADER) !== undefined) return next();
    return keyAuth(c, next);
  };
}

/** What proves the caller is the host: the host token's hash, or the API key that hostAuth checked. */
export async function hostProof(
  hostToken: string | undefined,
  keyId: string | undefined,
): Promise<HostProof> {
  if (hostToken === undefined) {
    if (keyId === undefined)
      throw new ApiError("unauthorized", "send the host token or the room creator's key");
    return { key_id: keyId };
  }
  if (!HOST_TOKEN.test(hostToken)) throw new ApiError("forbidden", "not this room's host token");
  return { host_token_hash: await resumeHash(hostToken) };
}

/**
 * Carries out one host action; everyone in the room is told (a `system` message).
 *
 * @example await controlRoom(env, id, { key_id: "key_1" }, { action: "lock" }); // { locked: true, ... }
 */
export async function controlRoom(
  env: Env,
  conversationId: string,
  proof: HostProof,
  control: HostControl,
): Promise<HostControlResult> {
  const notFound = new ApiError("not_found", "conversation not found or expired");
  if (!isConversationId(conversationId)) throw notFound;
  const result = await translationRoom(env, conversationId).control(proof, control);
  if (!("ok" in result)) return result;
  if (result.reason === "forbidden") throw new ApiError("forbidden", "not this room's host token");
  if (result.reason === "no_participant") throw new ApiError("not_found", "no such participant in this room");
  throw notFound;
}
