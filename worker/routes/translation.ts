import { createRoute, z } from "@hono/zod-openapi";
import { openSingleSocket } from "../live/open-socket.ts";
import { liveKeyAuth } from "../live/ws-auth.ts";
import { apiKeyAuth } from "../middleware/api-key-auth.ts";
import { jsonBodyLimit } from "../middleware/body-limit.ts";
import { sessionRateLimit } from "../middleware/rate-limit.ts";
import { createRouter } from "../router.ts";
import { socketTokenParam } from "../schemas/auth.ts";
import { apiKeySecurity } from "../schemas/common.ts";
import {
  LanguagesResponse,
  SessionCreateBody,
  SessionCreated,
  SessionDetailsResponse,
  translationErrorContent,
} from "../schemas/translation.ts";
import { readLanguages } from "../translation/languages.ts";
import { openRoomSocket } from "../translation/room-socket.ts";
import { createSession, sessionDetails } from "../translation/sessions.ts";

const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });
const error = (description: string) => ({ description, content: translationErrorContent });

const languagesRoute = createRoute({
  method: "get",
  path: "/languages",
  tags: ["translation"],
  summary: "Languages the deployment can hear and translate between, and the defaults",
  responses: {
    200: { description: "language list", content: json(LanguagesResponse) },
    503: error("no translation engine is connected, or the service is temporarily unavailable"),
  },
});

const createSessionRoute = createRoute({
  method: "post",
  path: "/session/create",
  tags: ["translation"],
  summary: "Create a multi-device session; its join_url (or a QR code of it) lets others in",
  security: apiKeySecurity,
  middleware: [apiKeyAuth(), sessionRateLimit(), jsonBodyLimit()] as const,
  request: { body: { required: true, content: json(SessionCreateBody) } },
  responses: {
    200: { description: "the session", content: json(SessionCreated) },
    400: error("unsupported language"),
    401: error("missing or invalid API key"),
    413: error("the body is over 64 KiB"),
    422: error("body validation failed"),
    429: error("over the per-key limit; see Retry-After"),
    503: error("the session store is unavailable"),
  },
});

const sessionRoute = createRoute({
  method: "get",
  path: "/session/{conversation_id}",
  tags: ["translation"],
  summary: "The initiator's language settings (no key: the conversation id is the capability)",
  request: { params: z.object({ conversation_id: z.string().max(64) }) },
  responses: {
    200: { description: "session details", content: json(SessionDetailsResponse) },
    404: error("unknown or expired conversation"),
    503: error("the session store is unavailable"),
  },
});

const singleRoute = createRoute({
  method: "get",
  path: "/ws/single",
  tags: ["translation"],
  summary: "Single-device translation over a WebSocket (protocol: docs/api.md)",
  security: apiKeySecurity,
  middleware: [liveKeyAuth("translate")] as const,
  request: {
    query: z.object({
      api_key: z.string().max(200).optional().openapi({
        description: "deprecated: the API key in the URL; browsers should use `token` (POST /v1/auth/tokens)",
        deprecated: true,
      }),
      token: socketTokenParam("translate"),
    }),
  },
  responses: {
    101: {
      description:
        "WebSocket: send `config`, then PCM16 audio; `transcript` messages come back. No free engine: " +
        "an error message and close 1013.",
    },
    400: error("not a WebSocket upgrade"),
    401: error("missing or invalid API key"),
  },
});

const roomRoute = createRoute({
  method: "get",
  path: "/ws/{conversation_id}",
  tags: ["translation"],
  summary: "Join a multi-device room over a WebSocket (no key: the conversation id is the capability)",
  request: {
    params: z.object({ conversation_id: z.string().max(64) }),
    query: z.object({
      language: z
        .string()
        .max(64)
        .optional()
        .openapi({ description: "your language (required)", example: "es" }),
      client_id: z.string().max(64).optional().openapi({
        description:
          "the id you would like in the room (first connect; a taken one is replaced by a fresh id)",
      }),
      resume: z.string().max(64).optional().openapi({
        description:
          "the resume_token of your last welcome: reconnect with it within 30 s to keep your place",
      }),
    }),
  },
  responses: {
    101: {
      description:
        "WebSocket: welcome, presence, transcripts. Closed 4404 (unknown or expired conversation), 4400 " +
        "(bad language, client_id or resume token), 4429 (room full), 4408 (room expired), 4409 (resumed elsewhere), " +
        "4410 (the room reached ROOM_MAX_AGE_SEC).",
    },
    400: error("not a WebSocket upgrade"),
  },
});

/**
 * Mounted at /api/v1: the real-time translation API (spec: realtime-translation.md): languages,
 * multi-device sessions and the two WebSocket endpoints.
 */
export const translationRoutes = createRouter()
  .openapi(languagesRoute, async (c) => c.json(await readLanguages(c.env), 200))
  .openapi(createSessionRoute, async (c) =>
    c.json(await createSession(c.env, c.req.url, c.req.valid("json"), c.get("apiKey").id), 200),
  )
  .openapi(sessionRoute, async (c) =>
    c.json(await sessionDetails(c.env, c.req.valid("param").conversation_id), 200),
  )
  .openapi(singleRoute, async (c) => openSingleSocket(c.env, c.req.raw, { keyId: c.get("apiKey").id }))
  .openapi(roomRoute, async (c) => {
    const { language, client_id, resume } = c.req.valid("query");
    return openRoomSocket(c.env, c.req.raw, c.req.valid("param").conversation_id, {
      language: language ?? null,
      client_id: client_id ?? null,
      resume: resume ?? null,
    });
  });
