import { createRoute, z } from "@hono/zod-openapi";
import { defaultEnvelope } from "../error-envelope.ts";
import { createRouter } from "../router.ts";
import { HealthResponse, ModelsResponse } from "../schemas/discovery.ts";
import { readHealth, readModels } from "../tasks/health.ts";

const ApiRoot = z
  .object({ name: z.string(), version: z.string(), docs: z.string(), openapi: z.string() })
  .meta({ id: "ApiRoot" });

const rootRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["discovery"],
  summary: "Where the documentation is",
  responses: {
    200: { description: "API name and links", content: { "application/json": { schema: ApiRoot } } },
  },
});

const healthRoute = createRoute({
  method: "get",
  path: "/health",
  tags: ["discovery"],
  summary: "Dependency state: recognition engine, live-mic gate, job queue",
  responses: {
    200: {
      description: "always 200 while the service serves",
      content: { "application/json": { schema: HealthResponse } },
    },
  },
});

const modelsRoute = createRoute({
  method: "get",
  path: "/models",
  tags: ["discovery"],
  summary: "The model registry and which models can serve now",
  responses: {
    200: { description: "registry entries", content: { "application/json": { schema: ModelsResponse } } },
  },
});

export const discoveryRoutes = createRouter(defaultEnvelope)
  .openapi(rootRoute, (c) =>
    c.json({ name: "voxedge", version: "1.0.0", docs: "/docs", openapi: "/openapi.json" }, 200),
  )
  .openapi(healthRoute, async (c) => c.json((await readHealth(c.env)).health, 200))
  .openapi(modelsRoute, async (c) => c.json(await readModels(c.env), 200));
