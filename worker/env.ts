import type { OpenAPIHono } from "@hono/zod-openapi";
import type { NodeIdentity } from "../platform/node-identity.ts";

/** What middleware puts on the context for handlers. */
export interface AppVariables {
  requestId: string;
  apiKey: { id: string; name: string };
  /** The calling inference node, on /internal routes and node sockets. */
  node: NodeIdentity;
}

export type AppEnv = { Bindings: Env; Variables: AppVariables };

export type AppRouter = OpenAPIHono<AppEnv>;
