import { Scalar } from "@scalar/hono-api-reference";
import { DOCS_UI_SCRIPT } from "../../protocol/console-routes.ts";
import type { AppRouter } from "../env.ts";

/** Serves the OpenAPI document generated from the route schemas, and a readable page over it. */
export function mountDocs(app: AppRouter): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", { type: "http", scheme: "bearer" });
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKeyHeader", {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
  });
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Voxedge API",
      version: "1.0.0",
      description:
        "Speech-to-text, real-time translation and content generation. Errors carry `detail` and a stable `code`.",
    },
  });
  // Everything the page loads comes from this deployment: the UI bundle from the web build's assets,
  // system fonts instead of Scalar's font CDN, no telemetry, none of Scalar's hosted services (AI agent,
  // MCP generator).
  app.get(
    "/docs",
    Scalar({
      url: "/openapi.json",
      pageTitle: "Voxedge API",
      cdn: DOCS_UI_SCRIPT,
      withDefaultFonts: false,
      telemetry: false,
      agent: { disabled: true },
      mcp: { disabled: true },
      showDeveloperTools: "never",
    }),
  );
}
