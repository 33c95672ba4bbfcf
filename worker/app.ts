import { cors } from "hono/cors";
import { requestId } from "hono/request-id";
import type { AppRouter } from "./env.ts";
import { defaultEnvelope, type ErrorEnvelope, envelopeErrorHandler } from "./error-envelope.ts";
import { ApiError } from "./errors.ts";
import { contentSecurityPolicy } from "./middleware/content-security.ts";
import { requestLog } from "./middleware/request-log.ts";
import { createRouter, envelopeOf } from "./router.ts";
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
import { realtimeRoutes } from "./routes/realtime.ts";
import { speakerRoutes } from "./routes/speakers.ts";
import { transcribeRoutes } from "./routes/transcribe.ts";
import { translationRoutes } from "./routes/translation.ts";
import { uploadRoutes } from "./routes/uploads.ts";

/** The public API: every route is mounted here, and here alone errors become HTTP responses. */
export const app = createRouter(defaultEnvelope);

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
// Where every path lives: one router per resource, each under its own prefix, each answering errors
// in the envelope it was made with. Where two share a prefix, the later one's envelope answers for
// paths no route of either matches (`/v1`: OpenAI's).
export const MOUNTS: readonly (readonly [prefix: string, router: AppRouter])[] = [
  ["/", discoveryRoutes], // GET /, /health, /models
  ["/transcribe", transcribeRoutes], // POST /transcribe[/object|/upload], GET /transcribe/{id}
  ["/history", historyRoutes],
  ["/uploads", uploadRoutes], // POST /uploads/presign, PUT /uploads/put/{key}
  ["/media", mediaRoutes], // GET /media/{key}
  ["/ws", liveRoutes], // the live microphone
  ["/v1/notes", noteRoutes], // content generation: notes
  ["/v1/community", communityRoutes], // content generation: published community notes
  ["/v1", catalogRoutes], // content: /v1/voices, /backgrounds, /templates, /catalog/previews/{file}
  ["/v2/create", createRoutes], // content: POST /v2/create/shorts, /quiz-video, /slide
  ["/v1/create/tasks", createTaskRoutes], // content: GET /v1/create/tasks/{id}/result
  ["/v1/auth", authRoutes], // POST /v1/auth/tokens: socket tokens for browsers
  ["/v1/realtime", realtimeRoutes], // OpenAI Realtime transcription: the socket, client secrets
  ["/v1", openaiRoutes], // /v1/audio/*, /v1/models
  ["/api/v1", translationRoutes], // real-time translation: languages, sessions, sockets
  ["/internal/v1", internalRoutes], // nodes: leases
  ["/internal/v1/live", liveNodeRoutes], // nodes: live sockets
  ["/v1/speakers", speakerRoutes], // enrolled speakers (OpenAI's envelope)
];
for (const [prefix, router] of MOUNTS) app.route(prefix, router);
mountDocs(app); // GET /openapi.json, /docs

/** A path no route matches answers 404 in the envelope of the router mounted at its longest prefix. */
app.notFound((c) => {
  const error = new ApiError("not_found", "no such route");
  return (envelopeAtPath(c.req.path) ?? defaultEnvelope).render(c, error);
});

/** Errors outside every router (the app's own middleware) are rendered in the default envelope. */
app.onError(envelopeErrorHandler(defaultEnvelope));

/** The envelope answering for `path`: its longest mounted prefix's router's (the later one on a tie). */
export function envelopeAtPath(path: string): ErrorEnvelope | undefined {
  let best: { length: number; router: AppRouter } | null = null;
  for (const [prefix, router] of MOUNTS) {
    const under = prefix === "/" || path === prefix || path.startsWith(`${prefix}/`);
    if (under && (!best || prefix.length >= best.length)) best = { length: prefix.length, router };
  }
  return best ? envelopeOf(best.router) : undefined;
}
