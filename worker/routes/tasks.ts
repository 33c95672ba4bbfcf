import { createRoute } from "@hono/zod-openapi";
import { audioUrlMinter } from "../media/audio-url.ts";
import { apiKeyAuth } from "../middleware/api-key-auth.ts";
import { createRouter } from "../router.ts";
import { apiKeySecurity, errorContent, unauthorized, unprocessable } from "../schemas/common.ts";
import { HistoryPage, HistoryQuery } from "../schemas/history.ts";
import { TaskIdParam, TaskStatusResponse } from "../schemas/tasks.ts";
import { listHistory } from "../tasks/history.ts";
import { pollTask } from "../tasks/poll.ts";

const pollRoute = createRoute({
  method: "get",
  path: "/transcribe/{task_id}",
  tags: ["speech-to-text"],
  summary: "Poll a transcription task",
  security: apiKeySecurity,
  middleware: [apiKeyAuth()] as const,
  request: { params: TaskIdParam },
  responses: {
    200: { description: "task state", content: { "application/json": { schema: TaskStatusResponse } } },
    401: unauthorized,
    404: { description: "unknown task, expired, or another key's task", content: errorContent },
    422: unprocessable,
  },
});

const historyRoute = createRoute({
  method: "get",
  path: "/history",
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

export const taskRoutes = createRouter()
  .openapi(pollRoute, async (c) => {
    const { task_id } = c.req.valid("param");
    const mint = audioUrlMinter(c.env, c.req.url);
    return c.json(await pollTask(c.env, task_id, c.get("apiKey").id, mint), 200);
  })
  .openapi(historyRoute, async (c) => {
    const query = c.req.valid("query");
    const mint = audioUrlMinter(c.env, c.req.url);
    return c.json(await listHistory(c.env, { ownerKeyId: c.get("apiKey").id, ...query }, mint), 200);
  });
