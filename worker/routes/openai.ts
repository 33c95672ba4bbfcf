import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { SpeechTask } from "../../protocol/transcribe-params.ts";
import type { AppEnv, AppRouter } from "../env.ts";
import { apiKeyAuth } from "../middleware/api-key-auth.ts";
import { enqueueRateLimit } from "../middleware/rate-limit.ts";
import { OpenAIError, openAIEnvelope } from "../openai/errors.ts";
import { findModel, listModels } from "../openai/models.ts";
import { runSyncTranscription, TASK_ID_HEADER } from "../openai/sync.ts";
import { createRouter } from "../router.ts";
import {
  OpenAIErrorBody,
  OpenAIModel,
  OpenAIModelList,
  OpenAIModelParam,
  OpenAITranscription,
  OpenAITranscriptionDiarized,
  OpenAITranscriptionVerbose,
  TranscriptionForm,
  TranslationForm,
  transcriptionFormRef,
  translationFormRef,
} from "../schemas/openai.ts";

/**
 * The OpenAI-compatible API, mounted at /v1: synchronous transcriptions and translations, and the
 * model list. Errors here are rendered in OpenAI's envelope by the app's error handler.
 */

const security = [{ bearerAuth: [] }];
const error = (description: string) => ({
  description,
  content: { "application/json": { schema: OpenAIErrorBody } },
});

const syncResponses = {
  200: {
    description:
      "the transcript: json, verbose_json and diarized_json as application/json, text, srt and vtt as text/plain; " +
      "with stream=true (json, text or diarized_json) OpenAI's transcript events as text/event-stream " +
      "(`transcript.text.delta` while decoding, `transcript.text.segment` for diarized_json, then " +
      `\`transcript.text.done\`). The ${TASK_ID_HEADER} header names the task (it is in /history)`,
    content: {
      "application/json": {
        schema: z.union([OpenAITranscription, OpenAITranscriptionVerbose, OpenAITranscriptionDiarized]),
      },
      "text/plain": { schema: z.string() },
      "text/event-stream": { schema: z.string() },
    },
  },
  400: error(
    "no file (OpenAI's own message, param null); an unsupported response_format, timestamp granularity, " +
      "language, chunking_strategy, include or known speaker, stream=true with a format that is a document " +
      "(verbose_json, srt, vtt), or a combination OpenAI refuses " +
      "(timestamp_granularities without verbose_json, diarized_json with prompt), each naming its `param`; " +
      "or a file that is not audio",
  ),
  401: error("missing or invalid API key (code invalid_api_key)"),
  413: error("the file exceeds 2 GB (a declared Content-Length is refused before reading)"),
  422: error("malformed form: two files, a non-numeric temperature, an over-long prompt"),
  429: {
    ...error("rate limit exceeded for this API key"),
    headers: { "Retry-After": { description: "seconds to wait", schema: { type: "integer" } } },
  },
  499: error("the caller went away before the answer; its task was cancelled (code cancelled)"),
  500: error("the transcription failed on the inference node (x-should-retry: false)"),
  503: error("model not configured, or the job queue is unavailable"),
  504: error("not finished within SYNC_WAIT_MAX_SEC; the task goes on: poll it (x-should-retry: false)"),
} as const;

const syncRoute = (path: string, summary: string, formRef: { $ref: string }) =>
  createRoute({
    method: "post",
    path,
    tags: ["openai-compatible"],
    security,
    summary,
    middleware: [apiKeyAuth(), enqueueRateLimit()] as const,
    request: { body: { required: true, content: { "multipart/form-data": { schema: formRef } } } },
    responses: syncResponses,
  });

const transcriptionsRoute = syncRoute(
  "/audio/transcriptions",
  "Transcribe audio synchronously (OpenAI-compatible; waits for the result)",
  transcriptionFormRef,
);

const translationsRoute = syncRoute(
  "/audio/translations",
  "Translate speech to English synchronously (OpenAI-compatible; waits for the result)",
  translationFormRef,
);

const modelsRoute = createRoute({
  method: "get",
  path: "/models",
  tags: ["openai-compatible"],
  security,
  summary: "Models in OpenAI's list shape; whisper-1 is an alias of the registry default",
  middleware: [apiKeyAuth()] as const,
  responses: {
    200: { description: "the models", content: { "application/json": { schema: OpenAIModelList } } },
    401: error("missing or invalid API key"),
  },
});

const modelRoute = createRoute({
  method: "get",
  path: "/models/{model}",
  tags: ["openai-compatible"],
  security,
  summary: "One model",
  middleware: [apiKeyAuth()] as const,
  request: { params: OpenAIModelParam },
  responses: {
    200: { description: "the model", content: { "application/json": { schema: OpenAIModel } } },
    401: error("missing or invalid API key"),
    404: error("no such model (code model_not_found)"),
  },
});

export const openaiRoutes: AppRouter = createRouter(openAIEnvelope);
openaiRoutes.openAPIRegistry.register("OpenAITranscriptionForm", TranscriptionForm);
openaiRoutes.openAPIRegistry.register("OpenAITranslationForm", TranslationForm);

/** Handler of both synchronous routes: the domain function does the work, the route only replies. */
const sync = (task: SpeechTask) => async (c: Context<AppEnv>) => {
  const reply = await runSyncTranscription(c.env, {
    ownerKeyId: c.get("apiKey").id,
    task,
    request: c.req.raw,
    waitUntil: (promise) => c.executionCtx.waitUntil(promise),
  });
  if ("events" in reply) {
    const events = c.body(reply.events, 200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      [TASK_ID_HEADER]: reply.taskId,
    });
    // the route's types know text bodies; the event stream is the declared text/event-stream reply
    return events as unknown as ReturnType<typeof c.text<string, 200>>;
  }
  // c.text keeps a given content-type (application/json for the JSON formats).
  return c.text(reply.body, 200, { "content-type": reply.contentType, [TASK_ID_HEADER]: reply.taskId });
};

openaiRoutes
  .openapi(transcriptionsRoute, sync("transcribe"))
  .openapi(translationsRoute, sync("translate"))
  .openapi(modelsRoute, (c) => c.json(listModels(c.env), 200))
  .openapi(modelRoute, (c) => {
    const { model } = c.req.valid("param");
    const found = findModel(c.env, model);
    if (!found) {
      throw new OpenAIError("not_found", `The model '${model}' does not exist`, {
        param: "model",
        openaiCode: "model_not_found",
      });
    }
    return c.json(found, 200);
  });
