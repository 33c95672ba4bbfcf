import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError } from "./errors.ts";
import { requestLog } from "./middleware/request-log.ts";
import { OPENAI_PREFIX, openAIErrorResponse, usesOpenAIEnvelope } from "./openai/errors.ts";
import { createRouter } from "./router.ts";
import { discoveryRoutes } from "./routes/discovery.ts";
import { mountDocs } from "./routes/docs.ts";
import { internalRoutes } from "./routes/internal.ts";
import { liveRoutes } from "./routes/live.ts";
import { mediaRoutes } from "./routes/media.ts";
import { openaiRoutes } from "./routes/openai.ts";
import { taskRoutes } from "./routes/tasks.ts";
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
    allowHeaders: ["Authorization", "x-api-key", "Content-Type", "x-request-id", "Range"],
    exposeHeaders: [
      "x-request-id",
      "Retry-After",
      "Content-Range",
      "Accept-Ranges",
      "x-should-retry",
      "x-voxedge-task-id",
    ],
    maxAge: 600,
  }),
);

app.route("/", discoveryRoutes);
app.route("/", taskRoutes);
app.route("/", transcribeRoutes);
app.route("/", uploadRoutes);
app.route("/", mediaRoutes);
app.route("/", liveRoutes);
app.route("/", translationRoutes);
app.route(OPENAI_PREFIX, openaiRoutes);
app.route("/internal/v1", internalRoutes);
mountDocs(app);

app.notFound(() => {
  throw new ApiError("not_found", "no such route");
});

app.onError((err, c) => {
  const error = toApiError(err);
  if (error.status >= 500) {
    console.error(
      JSON.stringify({ request_id: c.get("requestId"), error: String(err), stack: (err as Error).stack }),
    );
  }
  // One envelope per API, chosen by path: the OpenAI-compatible API (/v1) keeps OpenAI's, the
  // real-time translation API (/api/v1) its spec's {error, code}, everything else {detail, code}.
  if (usesOpenAIEnvelope(c.req.path)) return openAIErrorResponse(c, error);
  if (usesTranslationEnvelope(c.req.path)) return translationErrorResponse(c, error);
  return c.json(error.body(), error.status as ContentfulStatusCode, error.headers);
});

/** Maps anything thrown to a typed error: ours as is, Hono's by status, the rest as 500. */
function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof HTTPException) {
    if (err.status === 400 && /malformed json/i.test(err.message)) return malformedJsonError();
    if (err.status === 413) return new ApiError("payload_too_large", err.message || "request body too large");
    if (err.status === 401) return new ApiError("unauthorized", err.message || "unauthorized");
    return new ApiError("bad_request", err.message || "bad request");
  }
  return new ApiError("internal_error", "internal error");
}
