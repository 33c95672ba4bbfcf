import type { OpenAPIHono } from "@hono/zod-openapi";
import type { NodeIdentity } from "../platform/node-identity.ts";
import type { Principal } from "./auth/principal.ts";

/** What middleware puts on the context for handlers. */
export interface AppVariables {
  requestId: string;
  /** The key the request authenticated with; on content and notes routes, its principal's owner. */
  apiKey: { id: string; name: string };
  /** Who a content or notes request acts for (principal-auth.ts). */
  principal: Principal;
  /** The calling inference node, on /internal routes and node sockets. */
  node: NodeIdentity;
}

export type AppEnv = { Bindings: Env; Variables: AppVariables };

export type AppRouter = OpenAPIHono<AppEnv>;
