import { workerConfig } from "../../platform/config.ts";
import { ApiError } from "../errors.ts";
import type { SocketTokenScope } from "../schemas/auth.ts";
import { mintSocketToken } from "./socket-token.ts";

/**
 * POST /v1/auth/tokens: a token of `scope` for this key, valid `expiresIn` seconds from now. Signed with
 * UPLOAD_SIGNING_SECRET (the Worker's signing key, under its own tag); without it there are no tokens.
 */
export async function issueSocketToken(
  env: Env,
  request: { keyId: string; scope: SocketTokenScope; expiresIn: number },
): Promise<{ token: string; expires_in: number }> {
  const secret = workerConfig(env).uploadSigningSecret;
  if (!secret) {
    throw new ApiError("service_unavailable", "socket tokens are not configured: set UPLOAD_SIGNING_SECRET");
  }
  const expiresAt = Math.floor(Date.now() / 1000) + request.expiresIn;
  const token = await mintSocketToken(secret, { keyId: request.keyId, scope: request.scope, expiresAt });
  return { token, expires_in: request.expiresIn };
}
