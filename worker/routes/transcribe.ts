import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { publicBaseUrl } from "../../platform/config.ts";
import { TranscriptionResult } from "../../protocol/transcription.ts";
import type { AppEnv } from "../env.ts";
import { defaultEnvelope } from "../error-envelope.ts";
import { ApiError } from "../errors.ts";
import {
  type EnqueueCaller,
  type Enqueued,
  enqueueFromObject,
  enqueueFromUpload,
  enqueueFromUrl,
} from "../ingest/enqueue.ts";
import { mediaUrlMinter } from "../media/media-url.ts";
import { apiKeyAuth } from "../middleware/api-key-auth.ts";
import { jsonBodyLimit } from "../middleware/body-limit.ts";
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
import { OpenAITranscriptionDiarized } from "../schemas/openai.ts";
import { SubtitlesQuery } from "../schemas/subtitles.ts";
import { TaskAccepted, TaskIdParam, TaskStatusResponse } from "../schemas/tasks.ts";
import {
  TranscribeObjectRequest,
  TranscribeUrlRequest,
  UploadForm,
  uploadFormRef,
} from "../schemas/transcribe.ts";
import { deleteOwnedTask } from "../tasks/delete.ts";
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from "../tasks/idempotency.ts";
import { pollTask } from "../tasks/poll.ts";
import { exportSubtitles } from "../tasks/subtitles.ts";

/**
 * Mounted at /transcribe: enqueue audio from a URL, from a presigned upload, or streamed through the
 * API; poll a task; download a finished one as subtitles.
 */

const IdempotencyHeaders = z.object({
  "idempotency-key": z.string().max(255).optional().openapi({
    description:
      "retry-safe creation: the same key (per API key, 24 h) returns the first request's task, with Idempotent-Replayed: true",
  }),
});

const enqueue = { tags: ["speech-to-text"], security: apiKeySecurity };

const responses = (badRequest: string) => ({
  200: {
    description: "queued; poll GET /transcribe/{task_id}",
    content: { "application/json": { schema: TaskAccepted } },
  },
  400: { description: badRequest, content: errorContent },
  401: unauthorized,
  413: payloadTooLarge,
  409: {
    description: "a request with the same Idempotency-Key is still in progress (see Retry-After)",
    content: errorContent,
  },
  422: unprocessable,
  429: rateLimited,
  503: { description: "model not configured, or the job queue is unavailable", content: errorContent },
});

const urlRoute = createRoute({
  ...enqueue,
  middleware: [apiKeyAuth(), enqueueRateLimit(), jsonBodyLimit()] as const,
  method: "post",
  path: "/",
  summary: "Transcribe audio from an http(s) URL (headers checked during the request)",
  request: {
    headers: IdempotencyHeaders,
    body: { required: true, content: { "application/json": { schema: TranscribeUrlRequest } } },
  },
  responses: responses(
    "unsupported language, auto-detect without the base model, or an unusable file_url (scheme, refused " +
      "address, 404, expired share link, an HTML page or a JSON error instead of media, unreachable host)",
  ),
});

const objectRoute = createRoute({
  ...enqueue,
  middleware: [apiKeyAuth(), enqueueRateLimit(), jsonBodyLimit()] as const,
  method: "post",
  path: "/object",
  summary: "Transcribe a presigned upload, once its PUT has completed",
  request: {
    headers: IdempotencyHeaders,
    body: { required: true, content: { "application/json": { schema: TranscribeObjectRequest } } },
  },
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
  request: {
    headers: IdempotencyHeaders,
    body: { required: true, content: { "multipart/form-data": { schema: uploadFormRef } } },
  },
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

const deleteRoute = createRoute({
  method: "delete",
  path: "/{task_id}",
  tags: ["speech-to-text"],
  summary:
    "Delete a transcription: cancel it if queued or running, delete its stored upload, result and history entry",
  security: apiKeySecurity,
  middleware: [apiKeyAuth()] as const,
  request: { params: TaskIdParam },
  responses: {
    204: { description: "deleted; the task id answers 404 from now on" },
    401: unauthorized,
    404: { description: "unknown task, another key's task, or already deleted", content: errorContent },
    422: unprocessable,
  },
});

const subtitlesRoute = createRoute({
  method: "get",
  path: "/{task_id}/subtitles",
  tags: ["speech-to-text"],
  summary: "Download a finished transcription as SRT, VTT, plain text or JSON (optionally its translation)",
  security: apiKeySecurity,
  middleware: [apiKeyAuth()] as const,
  request: { params: TaskIdParam, query: SubtitlesQuery },
  responses: {
    200: {
      description: "the file, as an attachment named <task_id>.<format>",
      headers: {
        "Content-Disposition": {
          description: 'attachment; filename="<task_id>.<format>"',
          schema: { type: "string" },
        },
      },
      content: {
        "application/x-subrip": { schema: z.string() },
        "text/vtt": { schema: z.string() },
        "text/plain": { schema: z.string() },
        "application/json": { schema: z.union([TranscriptionResult, OpenAITranscriptionDiarized]) },
      },
    },
    400: { description: "translated=true with format=json or diarized_json", content: errorContent },
    401: unauthorized,
    404: { description: "unknown task, expired, or another key's task", content: errorContent },
    409: {
      description:
        "the task is queued, processing or failed (no transcript), or translated=true and the job has no translation",
      content: errorContent,
    },
    422: unprocessable,
  },
});

const caller = (c: Context<AppEnv>): EnqueueCaller => ({
  ownerKeyId: c.get("apiKey").id,
  idempotencyKey: c.req.header(IDEMPOTENCY_HEADER) ?? null,
  origin: publicBaseUrl(c.env, c.req.url),
});

const reply = (c: Context<AppEnv>, out: Enqueued) =>
  c.json(out.accepted, 200, out.replayed ? { [REPLAYED_HEADER]: "true" } : {});

export const transcribeRoutes = createRouter(defaultEnvelope);
transcribeRoutes.openAPIRegistry.register("UploadForm", UploadForm);
transcribeRoutes
  .openapi(urlRoute, async (c) => reply(c, await enqueueFromUrl(c.env, caller(c), c.req.valid("json"))))
  .openapi(objectRoute, async (c) => reply(c, await enqueueFromObject(c.env, caller(c), c.req.valid("json"))))
  .openapi(uploadRoute, async (c) => reply(c, await enqueueFromUpload(c.env, caller(c), c.req.raw)))
  .openapi(pollRoute, async (c) => {
    const { task_id } = c.req.valid("param");
    const mint = mediaUrlMinter(c.env, c.req.url);
    return c.json(await pollTask(c.env, task_id, c.get("apiKey").id, mint), 200);
  })
  .openapi(deleteRoute, async (c) => {
    const deleted = await deleteOwnedTask(c.env, c.req.valid("param").task_id, c.get("apiKey").id, [
      "transcribe",
    ]);
    if (!deleted) throw new ApiError("not_found", "task not found");
    return c.body(null, 204);
  })
  .openapi(subtitlesRoute, async (c) => {
    const { task_id } = c.req.valid("param");
    const file = await exportSubtitles(c.env, task_id, c.get("apiKey").id, c.req.valid("query"));
    // c.text keeps the given content-type
    return c.text(file.body, 200, {
      "content-type": file.contentType,
      "content-disposition": `attachment; filename="${file.filename}"`,
    });
  });
