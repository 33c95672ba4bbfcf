import { createRoute } from "@hono/zod-openapi";
import { serveMedia } from "../media/public-media.ts";
import { createRouter } from "../router.ts";
import { errorContent } from "../schemas/common.ts";
import { ObjectKeyParam } from "../schemas/uploads.ts";

/** Mounted at /media. Documented here; served by the wildcard below, since an object key spans several path segments. */
const mediaRoute = createRoute({
  method: "get",
  path: "/{object_key}",
  tags: ["speech-to-text"],
  summary: "Stream uploaded audio (HTTP Range honoured, so players can seek)",
  description: "Needs no API key: the object key's random UUID is what protects it.",
  request: { params: ObjectKeyParam },
  responses: {
    200: {
      description: "the whole file",
      content: { "audio/*": { schema: { type: "string", format: "binary" } } },
    },
    206: {
      description: "the requested range",
      content: { "audio/*": { schema: { type: "string", format: "binary" } } },
    },
    404: { description: "no such media", content: errorContent },
    416: { description: "range not satisfiable" },
  },
});

export const mediaRoutes = createRouter();
mediaRoutes.openAPIRegistry.registerPath(mediaRoute);
mediaRoutes.get("/*", (c) => serveMedia(c.env, c.req.url, c.req.header("range") ?? null));
