import { z } from "@hono/zod-openapi";

/** Which socket a token opens: `live` /ws, `translate` /api/v1/ws/single, `realtime` /v1/realtime. */
export const SOCKET_TOKEN_SCOPES = ["live", "translate", "realtime"] as const;
export type SocketTokenScope = (typeof SOCKET_TOKEN_SCOPES)[number];

/** Bounds and default of `expires_in`, in seconds. */
export const SOCKET_TOKEN_TTL_SEC = { min: 10, max: 600, default: 60 } as const;

/** POST /v1/auth/tokens: a short-lived token for one kind of live socket. */
export const SocketTokenRequest = z
  .strictObject({
    scope: z.enum(SOCKET_TOKEN_SCOPES).openapi({
      description:
        "`live` opens /ws, `translate` opens /api/v1/ws/single, `realtime` opens /v1/realtime; nothing else",
      example: "live",
    }),
    expires_in: z
      .number()
      .int()
      .min(SOCKET_TOKEN_TTL_SEC.min)
      .max(SOCKET_TOKEN_TTL_SEC.max)
      .default(SOCKET_TOKEN_TTL_SEC.default)
      .openapi({ description: "seconds the token is valid for (a socket must be opened in that time)" }),
  })
  .meta({ id: "SocketTokenRequest" });

export const SocketTokenResponse = z
  .object({
    token: z.string().openapi({ description: "pass it as the socket URL's `token` query parameter" }),
    expires_in: z.number().int().openapi({ example: SOCKET_TOKEN_TTL_SEC.default }),
  })
  .meta({ id: "SocketToken" });

/** The `token` query parameter of a live socket's handshake. */
export const socketTokenParam = (scope: SocketTokenScope) =>
  z
    .string()
    .max(256)
    .optional()
    .openapi({
      description: `a socket token of scope \`${scope}\` (POST /v1/auth/tokens): a browser's credential that keeps the API key out of the URL`,
    });
