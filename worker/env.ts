import type { OpenAPIHono } from "@hono/zod-openapi";

/** What middleware puts on the context for handlers. */
export interface AppVariables {
  requestId: string;
  apiKey: { id: string; name: string };
}

export type AppEnv = { Bindings: Env; Variables: AppVariables };

export type AppRouter = OpenAPIHono<AppEnv>;
