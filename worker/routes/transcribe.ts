import { createRoute } from "@hono/zod-openapi";
import { enqueueFromObject, enqueueFromUpload, enqueueFromUrl } from "../ingest/enqueue.ts";
import { mediaUrlMinter } from "../media/media-url.ts";
import { apiKeyAuth } from "../middleware/api-key-auth.ts";
import { enqueueRateLimit } from "../middleware/rate-limit.ts";
import { createRouter } from "../router.ts";
import {
  apiKeySecurity,
  errorContent,
  payloadTooLarge,
  rateLimited,
  unauthorized,
  unprocessable,
} from "../schemas/common.ts";
import { TaskAccepted, TaskIdParam, TaskStatusResponse } from "../schemas/tasks.ts";
import {
  TranscribeObjectRequest,
  TranscribeUrlRequest,
  UploadForm,
  uploadFormRef,
} from "../schemas/transcribe.ts";
import { pollTask } from "../tasks/poll.ts";

/**
 * Mounted at /transcribe: enqueue audio from a URL, from a presigned upload, or streamed through the
 * API; poll a task.
 */

const enqueue = { tags: ["speech-to-text"], security: apiKeySecurity };

const responses = (badRequest: string) => ({
  200: {
    description: "queued; poll GET /transcribe/{task_id}",
    content: { "application/json": { schema: TaskAccepted } },
  },
  400: { description: badRequest, content: errorContent },
  401: unauthorized,
  413: payloadTooLarge,
  422: unprocessable,
  429: rateLimited,
  503: { description: "model not configured, or the job queue is unavailable", content: errorContent },
});

const urlRoute = createRoute({
  ...enqueue,
  middleware: [apiKeyAuth(), enqueueRateLimit()] as const,
  method: "post",
  path: "/",
  summary: "Transcribe audio from an http(s) URL (headers checked during the request)",
  request: { body: { required: true, content: { "application/json": { schema: TranscribeUrlRequest } } } },
  responses: responses(
    "unsupported language, auto-detect without the base model, or an unusable file_url (scheme, refused " +
      "address, 404, expired share link, unreachable host)",
  ),
});

const objectRoute = createRoute({
  ...enqueue,
  middleware: [apiKeyAuth(), enqueueRateLimit()] as const,
  method: "post",
  path: "/object",
  summary: "Transcribe a presigned upload, once its PUT has completed",
  request: { body: { required: true, content: { "application/json": { schema: TranscribeObjectRequest } } } },
  responses: {
    ...responses("unsupported language, or the object is not uploaded yet / empty"),
    404: { description: "no upload with this object_key for this API key", content: errorContent },
  },
});

const uploadRoute = createRoute({
  ...enqueue,
  middleware: [apiKeyAuth(), enqueueRateLimit()] as const,
  method: "post",
  path: "/upload",
  summary:
    "Transcribe a file streamed through the API (bodies above the plan's limit need the presigned flow)",
  request: { body: { required: true, content: { "multipart/form-data": { schema: uploadFormRef } } } },
  responses: responses("unsupported language, or auto-detect without the base model"),
});

const pollRoute = createRoute({
  method: "get",
  path: "/{task_id}",
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

export const transcribeRoutes = createRouter();
transcribeRoutes.openAPIRegistry.register("UploadForm", UploadForm);
transcribeRoutes
  .openapi(urlRoute, async (c) =>
    c.json(await enqueueFromUrl(c.env, c.get("apiKey").id, c.req.valid("json")), 200),
  )
  .openapi(objectRoute, async (c) =>
    c.json(await enqueueFromObject(c.env, c.get("apiKey").id, c.req.valid("json")), 200),
  )
  .openapi(uploadRoute, async (c) =>
    c.json(await enqueueFromUpload(c.env, c.get("apiKey").id, c.req.raw), 200),
  )
  .openapi(pollRoute, async (c) => {
    const { task_id } = c.req.valid("param");
    const mint = mediaUrlMinter(c.env, c.req.url);
    return c.json(await pollTask(c.env, task_id, c.get("apiKey").id, mint), 200);
  });
