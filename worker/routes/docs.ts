import { DOCS_UI_ASSETS } from "../../protocol/console-routes.ts";
import type { AppRouter } from "../env.ts";
import { docsPolicy } from "../middleware/content-security.ts";

const OPENAPI_PATH = "/openapi.json";

/**
 * The reference page: Swagger UI from this deployment's own assets over the generated document.
 * `validatorUrl: null` keeps it from asking swagger.io to validate the document (the only outside
 * request it would make); the one inline script is allowed by its hash (`docsPolicy`, computed once per isolate: the page is
 * a constant).
 */
const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Voxedge API</title>
<link rel="stylesheet" href="${DOCS_UI_ASSETS.style}">
</head>
<body>
<div id="reference"></div>
<script src="${DOCS_UI_ASSETS.script}"></script>
<script>SwaggerUIBundle({ url: "${OPENAPI_PATH}", dom_id: "#reference", validatorUrl: null, deepLinking: true });</script>
</body>
</html>
`;

let docsPagePolicy: Promise<string> | undefined;

/** Serves the OpenAPI document generated from the route schemas, and a readable page over it. */
export function mountDocs(app: AppRouter): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", { type: "http", scheme: "bearer" });
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKeyHeader", {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
  });
  app.doc31(OPENAPI_PATH, {
    openapi: "3.1.0",
    info: {
      title: "Voxedge API",
      version: "1.0.0",
      description:
        "Speech-to-text, real-time translation and content generation. Errors carry `detail` and a stable `code`.",
    },
  });
  app.get("/docs", async (c) => {
    docsPagePolicy ??= docsPolicy(DOCS_PAGE);
    return c.html(DOCS_PAGE, 200, { "Content-Security-Policy": await docsPagePolicy });
  });
}
