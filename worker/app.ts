import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ConfigError } from "../platform/config.ts";
import { contentErrorResponse, usesContentEnvelope } from "./content/errors.ts";
import { ApiError } from "./errors.ts";
import { contentSecurityPolicy } from "./middleware/content-security.ts";
import { requestLog } from "./middleware/request-log.ts";
import { OPENAI_PREFIX, openAIErrorResponse, usesOpenAIEnvelope } from "./openai/errors.ts";
import { createRouter } from "./router.ts";
import { authRoutes } from "./routes/auth.ts";
import { mountConsole } from "./routes/console.ts";
import { catalogRoutes, createRoutes, createTaskRoutes } from "./routes/content.ts";
import { discoveryRoutes } from "./routes/discovery.ts";
import { mountDocs } from "./routes/docs.ts";
import { historyRoutes } from "./routes/history.ts";
import { internalRoutes } from "./routes/internal.ts";
import { liveNodeRoutes, liveRoutes } from "./routes/live.ts";
import { mediaRoutes } from "./routes/media.ts";
import { communityRoutes, noteRoutes } from "./routes/notes.ts";
import { openaiRoutes } from "./routes/openai.ts";
import { transcribeRoutes } from "./routes/transcribe.ts";
import { translationRoutes } from "./routes/translation.ts";
import { uploadRoutes } from "./routes/uploads.ts";
import { translationErrorResponse, usesTranslationEnvelope } from "./translation/errors.ts";
import { malformedJsonError } from "./validation.ts";

/** The public API: every route is mounted here, and here alone errors become HTTP responses. */
export const app = createRouter();

app.use("*", requestId());
app.use("*", requestLog());
app.use(
  "*",
  cors({
    origin: "*",
    allowHeaders: [
      "Authorization",
      "x-api-key",
      "Content-Type",
      "x-request-id",
      "Range",
      "Idempotency-Key",
      "x-host-token",
    ],
    exposeHeaders: [
      "x-request-id",
      "Retry-After",
      "Content-Range",
      "Accept-Ranges",
      "x-should-retry",
      "x-voxedge-task-id",
      "Idempotent-Replayed",
    ],
    maxAge: 600,
  }),
);

app.use("*", contentSecurityPolicy());

// Before the API routes: a browser's page navigation to `/` or `/history` gets the web console.
mountConsole(app);
// Where every path lives: one router per resource, each under its own prefix.
app.route("/", discoveryRoutes); // GET /, /health, /models
app.route("/transcribe", transcribeRoutes); // POST /transcribe[/object|/upload], GET /transcribe/{id}
app.route("/history", historyRoutes);
app.route("/uploads", uploadRoutes); // POST /uploads/presign, PUT /uploads/put/{key}
app.route("/media", mediaRoutes); // GET /media/{key}
app.route("/ws", liveRoutes); // the live microphone
app.route("/v1/notes", noteRoutes); // content generation: notes
app.route("/v1/community", communityRoutes); // content generation: published community notes
app.route("/v1", catalogRoutes); // content: /v1/voices, /backgrounds, /templates, /catalog/previews/{file}
app.route("/v2/create", createRoutes); // content: POST /v2/create/shorts, /quiz-video, /slide
app.route("/v1/create/tasks", createTaskRoutes); // content: GET /v1/create/tasks/{id}/result
app.route("/v1/auth", authRoutes); // POST /v1/auth/tokens: socket tokens for browsers
app.route(OPENAI_PREFIX, openaiRoutes); // /v1/audio/*, /v1/models
app.route("/api/v1", translationRoutes); // real-time translation: languages, sessions, sockets
app.route("/internal/v1", internalRoutes); // nodes: leases
app.route("/internal/v1/live", liveNodeRoutes); // nodes: live sockets
mountDocs(app); // GET /openapi.json, /docs

app.notFound(() => {
  throw new ApiError("not_found", "no such route");
});

app.onError((err, c) => {
  const error = toApiError(err, c.req.header("content-type") ?? "");
  if (error.status >= 500) {
    console.error(
      JSON.stringify({ request_id: c.get("requestId"), error: String(err), stack: (err as Error).stack }),
    );
  }
  // Each service keeps its envelope: content {error, error_key, message}, the OpenAI-compatible API
  // (the rest of /v1) OpenAI's, real-time translation (/api/v1) its spec's {error, code}, everything
  // else {detail, code}.
  if (usesContentEnvelope(c.req.path)) return contentErrorResponse(c, error);
  if (usesOpenAIEnvelope(c.req.path)) return openAIErrorResponse(c, error);
  if (usesTranslationEnvelope(c.req.path)) return translationErrorResponse(c, error);
  return c.json(error.body(), error.status as ContentfulStatusCode, error.headers);
});

/** Maps anything thrown to a typed error: ours as is, Hono's by status, the rest as 500. */
function toApiError(err: unknown, contentType: string): ApiError {
  if (err instanceof ApiError) return err;
  // The message (logged above) names the variable; clients only learn the service cannot serve.
  if (err instanceof ConfigError) return new ApiError("service_unavailable", "the service is misconfigured");
  if (err instanceof HTTPException) {
    // Hono's body validators answer an unparsable body with a 400; a JSON body is the spec's 422.
    if (err.status === 400 && isJson(contentType)) return malformedJsonError();
    if (err.status === 413) return new ApiError("payload_too_large", err.message || "request body too large");
    if (err.status === 401) return new ApiError("unauthorized", err.message || "unauthorized");
    if (err.status === 415) {
      return new ApiError("unsupported_media_type", "this route does not take a body of that Content-Type");
    }
    return new ApiError("bad_request", err.message || "bad request");
  }
  return new ApiError("internal_error", "internal error");
}

/** Whether a Content-Type names JSON (`application/json`, `application/problem+json`, ...). */
function isJson(contentType: string): boolean {
  const type = contentType.split(";", 1)[0]?.trim().toLowerCase() ?? "";
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}
