import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import { loggedPath } from "./log-path.ts";

/**
 * One JSON log line per request, carrying the request id that the response also shows. The path only,
 * never the query string: a socket handshake's may carry an API key (`api_key`) or a socket token; and
 * a path segment that is a capability (a media key, a conversation id) only as a short hash.
 *
 * An inference node's calls are logged only when they fail. Its routine ones (lease polls,
 * heartbeats, progress, media reads, completions) would be several lines per task and one per node
 * every few seconds: 2 000 nodes heartbeating every 5 s alone write ~35 M lines a day to Workers Logs,
 * which bills per line; and under `wrangler dev` each line costs its log pipeline CPU taken from the
 * decodes beside it (docs/bench.md, `sync`). Which node ran what stays on the task's lease and in the node's own log.
 */
export function requestLog(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = Date.now();
    await next();
    const node = c.get("node");
    if (node && c.res.status < 400) return;
    const path = await loggedPath(c.req.path);
    const principal = c.get("principal");
    console.log(
      JSON.stringify({
        request_id: c.get("requestId"),
        method: c.req.method,
        path,
        status: c.res.status,
        ms: Date.now() - started,
        key_id: principal ? (principal.keyId ?? undefined) : c.get("apiKey")?.id,
        // A user's requests (their JWT, or a service key acting for them) carry the user too.
        user_id: principal && principal.ownerId !== principal.keyId ? principal.userId : undefined,
        node_id: node?.id,
        node: node?.name,
      }),
    );
  };
}
