import { createRoute, z } from "@hono/zod-openapi";
import { liveLanguage } from "../../protocol/live.ts";
import type { AppRouter } from "../env.ts";
import { defaultEnvelope } from "../error-envelope.ts";
import { connectNodeToHub, connectNodeToStream, openLiveSocket } from "../live/open-socket.ts";
import { liveKeyAuth } from "../live/ws-auth.ts";
import { nodeAuth } from "../middleware/node-auth.ts";
import { createRouter } from "../router.ts";
import { socketTokenParam } from "../schemas/auth.ts";
import { apiKeySecurity, errorContent, unauthorized, unprocessable } from "../schemas/common.ts";

const WsQuery = z.object({
  language: z
    .string()
    .max(64)
    .optional()
    .refine((value) => liveLanguage(value) !== null, "unsupported language")
    .openapi({ description: "spoken language (code or name); omitted or `auto` detects it", example: "en" }),
  api_key: z.string().max(200).optional().openapi({
    description: "deprecated: the API key in the URL; browsers should use `token` (POST /v1/auth/tokens)",
    deprecated: true,
  }),
  token: socketTokenParam("live"),
});

const wsRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["live"],
  summary: "Live microphone transcription over a WebSocket (protocol: docs/api.md)",
  security: apiKeySecurity,
  middleware: [liveKeyAuth("live")] as const,
  request: { query: WsQuery },
  responses: {
    101: {
      description:
        "WebSocket: `ready` first, then interim/final/error messages. Refused streams (another session " +
        "holds the gate, or no streaming engine is connected) get an error message and close 1013.",
    },
    400: { description: "not a WebSocket upgrade", content: errorContent },
    401: unauthorized,
    422: unprocessable,
  },
});

/** Mounted at /ws: the public live-mic socket. */
export const liveRoutes = createRouter(defaultEnvelope).openapi(wsRoute, async (c) => {
  const language = liveLanguage(c.req.valid("query").language) ?? "auto";
  return openLiveSocket(c.env, c.req.raw, { keyId: c.get("apiKey").id, language });
});

/**
 * Mounted at /internal/v1/live: the sockets inference nodes dial out to (node tokens, undocumented),
 * at LIVE_NODE_PATH and liveStreamPath(id, secret) (every kind of stream, rooms' included).
 */
export const liveNodeRoutes: AppRouter = createRouter(defaultEnvelope);
liveNodeRoutes
  .use("*", nodeAuth())
  .get("/node", (c) => connectNodeToHub(c.env, c.req.raw, c.get("node")))
  .get("/streams/:stream_id/:secret", (c) =>
    connectNodeToStream(c.env, c.req.raw, c.get("node"), {
      streamId: c.req.param("stream_id"),
      secret: c.req.param("secret"),
    }),
  );
