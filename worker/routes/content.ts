import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import { publicBaseUrl } from "../../platform/config.ts";
import { readTaskWithWebhook } from "../../platform/task-store.ts";
import type { ContentKind } from "../../protocol/content.ts";
import { CONTENT_KINDS } from "../../protocol/task.ts";
import { backgroundCatalog, servePreview, templateCatalog, voiceCatalog } from "../content/catalog.ts";
import { createContentTask } from "../content/create.ts";
import { ContentApiError, contentEnvelope } from "../content/errors.ts";
import { readCreateForm } from "../content/form.ts";
import type { CreateForm } from "../content/forms/create-form.ts";
import { CREATE_FORMS } from "../content/forms/index.ts";
import type { AppEnv } from "../env.ts";
import { mediaUrlMinter } from "../media/media-url.ts";
import { principalAuth } from "../middleware/principal-auth.ts";
import { enqueueRateLimit } from "../middleware/rate-limit.ts";
import { createRouter } from "../router.ts";
import { apiKeySecurity } from "../schemas/common.ts";
import {
  BackgroundList,
  CreateAccepted,
  PreviewParam,
  TaskIdParam,
  TaskResultResponse,
  TemplateList,
  VoiceList,
} from "../schemas/content.ts";
import { contentError } from "../schemas/content-common.ts";
import { deleteOwnedTask } from "../tasks/delete.ts";
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from "../tasks/idempotency.ts";
import { workerTaskKind } from "../tasks/kinds/index.ts";

/**
 * The content service, in three routers for the spec's three prefixes: the catalogs and their
 * previews (mounted at /v1), the create endpoints (at /v2/create) and task polling (at
 * /v1/create/tasks).
 */

const secured = { tags: ["content"], security: apiKeySecurity };
const unauthorized = {
  401: contentError(
    "missing or invalid credentials: an API key, a service key or a user JWT (error_key says which check failed)",
  ),
};
const json = <T>(schema: T) => ({ "application/json": { schema } });

const catalogRoute = (
  path: string,
  summary: string,
  schema: typeof VoiceList | typeof BackgroundList | typeof TemplateList,
) =>
  createRoute({
    ...secured,
    middleware: [principalAuth()] as const,
    method: "get",
    path,
    summary,
    responses: { 200: { description: "the catalog", content: json(schema) }, ...unauthorized },
  });

const voicesRoute = catalogRoute("/voices", "Narration voices, each with a spoken sample", VoiceList);
const backgroundsRoute = catalogRoute(
  "/backgrounds",
  "Video backgrounds, each with a thumbnail",
  BackgroundList,
);
const templatesRoute = catalogRoute(
  "/templates",
  "Slide and quiz-video templates, each with a thumbnail",
  TemplateList,
);

const createResponses = {
  200: { description: "queued; poll GET /v1/create/tasks/{task_id}/result", content: json(CreateAccepted) },
  400: contentError(
    "a field is missing or wrong: missing_field, unknown_voice, unknown_background, unknown_template, " +
      "invalid_clip_duration, invalid_boolean, invalid_slide_count_range, unsupported_language, " +
      "invalid_count, invalid_difficulty, invalid_format, invalid_length, voice_language_mismatch, duplicate_voice",
  ),
  ...unauthorized,
  404: contentError("no such note for this API key (note_not_found)"),
  409: contentError("a request with the same Idempotency-Key is still in progress"),
  413: contentError("the form is over 16 KB"),
  415: contentError("not a form body (unsupported_media_type)"),
  422: contentError("the Idempotency-Key was used with a different request"),
  429: contentError(
    "rate limit exceeded for this API key, or (webhook_backlog) its webhook deliveries waiting on their receiver are at WEBHOOK_MAX_PENDING_PER_KEY (see Retry-After)",
  ),
  503: contentError("the job queue is unavailable"),
};

const createRouteFor = ({ path, summary, form }: CreateForm<ContentKind>) =>
  createRoute({
    ...secured,
    middleware: [principalAuth(), enqueueRateLimit()] as const,
    method: "post",
    path,
    summary,
    request: { body: { required: true, content: { "application/x-www-form-urlencoded": { schema: form } } } },
    responses: createResponses,
  });

const resultRoute = createRoute({
  ...secured,
  middleware: [principalAuth()] as const,
  method: "get",
  path: "/{task_id}/result",
  summary: "Poll a task: PENDING, PROCESSING (step, progress, estimated_time), SUCCESS (data) or FAILURE",
  request: { params: TaskIdParam },
  responses: {
    200: { description: "where the task stands", content: json(TaskResultResponse) },
    ...unauthorized,
    404: contentError("unknown task, or another key's (task_not_found)"),
  },
});

const deleteRoute = createRoute({
  ...secured,
  middleware: [principalAuth()] as const,
  method: "delete",
  path: "/{task_id}",
  summary: "Delete a task: cancel it if pending or running, delete its outputs and its record",
  request: { params: TaskIdParam },
  responses: {
    204: { description: "deleted; the task id answers 404 (task_not_found) from now on" },
    ...unauthorized,
    404: contentError("unknown task, another key's, or already deleted (task_not_found)"),
  },
});

/** Handler of the create routes: read the form, create, answer the spec's acknowledgement. */
const create = (kind: ContentKind) => async (c: Context<AppEnv>) => {
  const fields = await readCreateForm(c.req.raw);
  const principal = c.get("principal");
  const caller = {
    ownerKeyId: principal.ownerId,
    userId: principal.userId,
    idempotencyKey: c.req.header(IDEMPOTENCY_HEADER) ?? null,
    origin: publicBaseUrl(c.env, c.req.url),
  };
  const { accepted, replayed } = await createContentTask(c.env, caller, kind, fields);
  return c.json(accepted, 200, replayed ? { [REPLAYED_HEADER]: "true" } : {});
};

const previewRoute = createRoute({
  tags: ["content"],
  method: "get",
  path: "/catalog/previews/{file}",
  summary: "A catalog preview (voice sample or thumbnail); no API key, so media elements can load it",
  request: { params: PreviewParam },
  responses: {
    200: { description: "the file (image/png or audio/mpeg), cacheable" },
    404: contentError("no such preview, or no node has rendered it yet (preview_not_found)"),
  },
});

export const catalogRoutes = createRouter(contentEnvelope)
  .openapi(voicesRoute, (c) => c.json(voiceCatalog(publicBaseUrl(c.env, c.req.url)), 200))
  .openapi(backgroundsRoute, (c) => c.json(backgroundCatalog(publicBaseUrl(c.env, c.req.url)), 200))
  .openapi(templatesRoute, (c) => c.json(templateCatalog(publicBaseUrl(c.env, c.req.url)), 200))
  .openapi(previewRoute, async (c) => servePreview(c.env, c.req.valid("param").file));

/**
 * Documented from the form schemas, served by plain handlers: the form is read here (bounded, one
 * error_key per problem) rather than by the schema validator, which would answer a missing field with
 * a generic 422 and read bodies of any size.
 */
export const createRoutes = createRouter(contentEnvelope);
for (const kind of CONTENT_KINDS) {
  const form = CREATE_FORMS[kind] as CreateForm<ContentKind>;
  createRoutes.openAPIRegistry.registerPath(createRouteFor(form));
  createRoutes.post(form.path, principalAuth(), enqueueRateLimit(), create(kind));
}

const taskNotFound = () =>
  new ContentApiError("not_found", "task_not_found", "no such task for this API key");

export const createTaskRoutes = createRouter(contentEnvelope)
  .openapi(resultRoute, async (c) => {
    const found = await readTaskWithWebhook(c.env, c.req.valid("param").task_id);
    if (!found || found.record.owner_key_id !== c.get("principal").ownerId) throw taskNotFound();
    const { record } = found;
    const view = await workerTaskKind(record.kind).resultView(record, mediaUrlMinter(c.env, c.req.url));
    return c.json({ ...view, ...found.webhook }, 200);
  })
  .openapi(deleteRoute, async (c) => {
    const deleted = await deleteOwnedTask(
      c.env,
      c.req.valid("param").task_id,
      c.get("principal").ownerId,
      CONTENT_KINDS,
    );
    if (!deleted) throw taskNotFound();
    return c.body(null, 204);
  });
