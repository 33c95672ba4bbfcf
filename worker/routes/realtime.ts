import { createRoute, z } from "@hono/zod-openapi";
import { issueSocketToken } from "../auth/issue-socket-token.ts";
import { openRealtimeSocket } from "../live/open-socket.ts";
import { REALTIME_KEY_PROTOCOL, realtimeKeyAuth, realtimeProtocolKey } from "../live/ws-auth.ts";
import { apiKeyAuth } from "../middleware/api-key-auth.ts";
import { jsonBodyLimit } from "../middleware/body-limit.ts";
import { enqueueRateLimit } from "../middleware/rate-limit.ts";
import { OpenAIError, openAIEnvelope } from "../openai/errors.ts";
import { WHISPER_1 } from "../openai/models.ts";
import { createRouter } from "../router.ts";
import { SOCKET_TOKEN_TTL_SEC } from "../schemas/auth.ts";
import { OpenAIErrorBody } from "../schemas/openai.ts";

/**
 * OpenAI's Realtime transcription, mounted at /v1/realtime: the WebSocket (protocol in docs/api.md
 * "Realtime transcription") and the client secrets a browser opens it with.
 */

const security = [{ bearerAuth: [] }];
const error = (description: string) => ({
  description,
  content: { "application/json": { schema: OpenAIErrorBody } },
});

/** What a browser offers beside its credential; chosen in the handshake as OpenAI's server does. */
const REALTIME_PROTOCOL = "realtime";

const RealtimeQuery = z.object({
  model: z.string().min(1).max(64).optional().openapi({
    description:
      "any model name (the GA wire: `session.*` events); the live engine serves its loaded model whatever the name",
    example: "gpt-4o-transcribe",
  }),
  intent: z.literal("transcription").optional().openapi({
    description: "`transcription`: the beta wire (`transcription_session.*` events)",
  }),
});

const socketRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["openai"],
  summary: "OpenAI Realtime transcription over a WebSocket (events: docs/api.md)",
  security,
  middleware: [realtimeKeyAuth()] as const,
  request: { query: RealtimeQuery },
  responses: {
    101: {
      description:
        "WebSocket: `session.created` (or `transcription_session.created`) once an engine is in, then the " +
        "transcription events. With no engine free the socket gets an `error` event and closes 1013.",
    },
    400: error("not a WebSocket upgrade, or neither `model` nor `intent=transcription`"),
    401: error("missing or invalid API key or client secret"),
    422: error("a query parameter out of bounds"),
  },
});

const ClientSecretRequest = z
  .object({
    expires_after: z
      .object({
        anchor: z.literal("created_at").optional(),
        seconds: z.number().int().min(SOCKET_TOKEN_TTL_SEC.min).max(SOCKET_TOKEN_TTL_SEC.max).optional(),
      })
      .optional(),
    session: z.looseObject({ type: z.string().max(32).optional() }).optional(),
  })
  .meta({ id: "RealtimeClientSecretRequest" });

const ClientSecretResponse = z
  .object({
    value: z.string().openapi({ description: "the client secret: a browser's credential for /v1/realtime" }),
    expires_at: z.number().int().openapi({ description: "Unix seconds" }),
    session: z.object({ type: z.literal("transcription"), object: z.string() }).passthrough(),
  })
  .meta({ id: "RealtimeClientSecret" });

const clientSecretRoute = createRoute({
  method: "post",
  path: "/client_secrets",
  tags: ["openai"],
  summary: "A short-lived client secret that opens one realtime transcription socket (for browsers)",
  description:
    `A browser opens /v1/realtime with the subprotocols \`${REALTIME_PROTOCOL}\` and ` +
    `\`${REALTIME_KEY_PROTOCOL}<value>\`, or a server with \`Authorization: Bearer <value>\`, before ` +
    "`expires_at`. It opens nothing else, its key's limits apply, and it dies with its key.",
  security,
  middleware: [apiKeyAuth(), enqueueRateLimit(), jsonBodyLimit()] as const,
  request: {
    body: { required: false, content: { "application/json": { schema: ClientSecretRequest } } },
  },
  responses: {
    200: { description: "the secret", content: { "application/json": { schema: ClientSecretResponse } } },
    400: error("a session type other than `transcription` (only transcription sessions are served)"),
    401: error("missing or invalid API key"),
    422: error("expires_after.seconds outside 10..600, or another field"),
    429: error("over the per-key create limit; see Retry-After"),
    503: error("the deployment has no signing secret (UPLOAD_SIGNING_SECRET)"),
  },
});

/** Mounted at /v1/realtime. */
export const realtimeRoutes = createRouter(openAIEnvelope)
  .openapi(socketRoute, async (c) => {
    const { model, intent } = c.req.valid("query");
    if (!model && !intent) {
      throw new OpenAIError(
        "bad_request",
        "name a `model` (GA events) or `intent=transcription` (beta events)",
        {
          param: "model",
        },
      );
    }
    const offered = c.req.header("sec-websocket-protocol");
    return openRealtimeSocket(c.env, c.req.raw, {
      keyId: c.get("apiKey").id,
      wire: model ? "ga" : "beta",
      model: model ?? WHISPER_1,
      protocol: realtimeProtocolKey(offered) !== null ? REALTIME_PROTOCOL : null,
    });
  })
  .openapi(clientSecretRoute, async (c) => {
    const body = c.req.valid("json") ?? {};
    if (body.session?.type !== undefined && body.session.type !== "transcription") {
      throw new OpenAIError(
        "bad_request",
        "only transcription sessions are served here: session.type must be `transcription`",
        {
          param: "session.type",
        },
      );
    }
    const expiresIn = body.expires_after?.seconds ?? SOCKET_TOKEN_TTL_SEC.max;
    const { token } = await issueSocketToken(c.env, {
      keyId: c.get("apiKey").id,
      scope: "realtime",
      expiresIn,
    });
    return c.json(
      {
        value: token,
        expires_at: Math.floor(Date.now() / 1000) + expiresIn,
        session: { type: "transcription" as const, object: "realtime.transcription_session" },
      },
      200,
    );
  });
