import { createRoute } from "@hono/zod-openapi";
import { defaultEnvelope } from "../error-envelope.ts";
import { validationError } from "../errors.ts";
import { serveMedia } from "../media/public-media.ts";
import { createRouter } from "../router.ts";
import { errorContent } from "../schemas/common.ts";
import { MediaQuery, ObjectKeyParam } from "../schemas/uploads.ts";
import { toValidationIssues } from "../validation.ts";

/** Mounted at /media. Documented here; served by the wildcard below, since an object key spans several path segments. */
const mediaRoute = createRoute({
  method: "get",
  path: "/{object_key}",
  tags: ["speech-to-text"],
  summary: "Stream uploaded audio (HTTP Range honoured, so players can seek)",
  description:
    "Needs no API key and, by default, no signature: the object key's random UUID is what protects it. " +
    "A deployment with MEDIA_REQUIRE_SIGNATURE=true serves only signed, unexpired links (`expires`, `sig`). " +
    "Content-Disposition: audio and video `inline`, documents `attachment` unless `disposition=inline`.",
  request: { params: ObjectKeyParam, query: MediaQuery },
  responses: {
    200: {
      description: "the whole file",
      content: { "audio/*": { schema: { type: "string", format: "binary" } } },
    },
    206: {
      description: "the requested range",
      content: { "audio/*": { schema: { type: "string", format: "binary" } } },
    },
    403: {
      description: "unsigned, forged or expired link (only with MEDIA_REQUIRE_SIGNATURE)",
      content: errorContent,
    },
    404: { description: "no such media", content: errorContent },
    416: { description: "range not satisfiable" },
  },
});

export const mediaRoutes = createRouter(defaultEnvelope);
mediaRoutes.openAPIRegistry.registerPath(mediaRoute);
mediaRoutes.get("/*", (c) => {
  const query = c.req.query();
  const parsed = MediaQuery.safeParse(query);
  if (!parsed.success) throw validationError(toValidationIssues(parsed.error, "query", query));
  return serveMedia(c.env, {
    url: c.req.url,
    range: c.req.header("range") ?? null,
    disposition: parsed.data.disposition ?? null,
  });
});
