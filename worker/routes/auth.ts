import { createRoute } from "@hono/zod-openapi";
import { issueSocketToken } from "../auth/issue-socket-token.ts";
import { apiKeyAuth } from "../middleware/api-key-auth.ts";
import { jsonBodyLimit } from "../middleware/body-limit.ts";
import { enqueueRateLimit } from "../middleware/rate-limit.ts";
import { openAIEnvelope } from "../openai/errors.ts";
import { createRouter } from "../router.ts";
import { SocketTokenRequest, SocketTokenResponse } from "../schemas/auth.ts";
import { apiKeySecurity } from "../schemas/common.ts";
import { OpenAIErrorBody } from "../schemas/openai.ts";

/** Under /v1, so errors come in OpenAI's envelope like the rest of /v1 (statuses unchanged). */
const error = (description: string) => ({
  description,
  content: { "application/json": { schema: OpenAIErrorBody } },
});

const tokenRoute = createRoute({
  method: "post",
  path: "/tokens",
  tags: ["auth"],
  summary:
    "A short-lived token that opens one kind of live socket, for browsers (keeps the API key out of URLs)",
  description:
    "Open /ws (scope `live`) or /api/v1/ws/single (scope `translate`) with `?token=<token>`, or " +
    "/v1/realtime (scope `realtime`, as OpenAI's client secret) before it " +
    "expires. A token opens nothing else: REST routes refuse it (401). Its key's limits apply, and it " +
    "stops working when its key is revoked.",
  security: apiKeySecurity,
  middleware: [apiKeyAuth(), enqueueRateLimit(), jsonBodyLimit()] as const,
  request: { body: { required: true, content: { "application/json": { schema: SocketTokenRequest } } } },
  responses: {
    200: { description: "the token", content: { "application/json": { schema: SocketTokenResponse } } },
    401: error("missing or invalid API key (a socket token is not an API key)"),
    413: error("the JSON body is over 64 KiB"),
    422: error(
      "scope not `live`, `translate` or `realtime`, expires_in not an integer in 10..600, or another field",
    ),
    429: error("over the per-key create limit; see Retry-After"),
    503: error("the deployment has no signing secret (UPLOAD_SIGNING_SECRET)"),
  },
});

/** Mounted at /v1/auth. */
export const authRoutes = createRouter(openAIEnvelope).openapi(tokenRoute, async (c) => {
  const { scope, expires_in } = c.req.valid("json");
  return c.json(
    await issueSocketToken(c.env, { keyId: c.get("apiKey").id, scope, expiresIn: expires_in }),
    200,
  );
});
