import { createRoute } from "@hono/zod-openapi";
import { defaultEnvelope } from "../error-envelope.ts";
import { mediaUrlMinter } from "../media/media-url.ts";
import { apiKeyAuth } from "../middleware/api-key-auth.ts";
import { createRouter } from "../router.ts";
import { apiKeySecurity, unauthorized, unprocessable } from "../schemas/common.ts";
import { HistoryPage, HistoryQuery } from "../schemas/history.ts";
import { listHistory } from "../tasks/history.ts";

/** Mounted at /history. */

const historyRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["speech-to-text"],
  summary: "The calling key's jobs, newest first",
  security: apiKeySecurity,
  middleware: [apiKeyAuth()] as const,
  request: { query: HistoryQuery },
  responses: {
    200: { description: "one page", content: { "application/json": { schema: HistoryPage } } },
    401: unauthorized,
    422: unprocessable,
  },
});

export const historyRoutes = createRouter(defaultEnvelope).openapi(historyRoute, async (c) => {
  const query = c.req.valid("query");
  const mint = mediaUrlMinter(c.env, c.req.url);
  return c.json(await listHistory(c.env, { ownerKeyId: c.get("apiKey").id, ...query }, mint), 200);
});
