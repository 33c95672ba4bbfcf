import type { MiddlewareHandler } from "hono";
import { consolePageOf, isConsolePath } from "../../protocol/console-routes.ts";
import type { AppEnv, AppRouter } from "../env.ts";
import { ApiError } from "../errors.ts";
import { type JoinPage, joinNoticePage, joinPageFor } from "../translation/join-page.ts";

/**
 * The web console (web/, built to web/dist and served as Workers Static Assets). Asset files are served
 * by Cloudflare before the Worker runs; this module covers what the Worker itself must decide:
 *
 * - a browser's page navigation to a console page (`/`, `/history`, `/jobs/:id`, ...) gets index.html,
 *   so the client-side router can draw it (run_worker_first = ["/"] sends `/` here too);
 * - any GET of a join link (`/join/:id`, which is no API resource), from any client, gets the console
 *   page: as is for a live room, with 404 and "this conversation has ended" written into it otherwise;
 * - `GET /console/dev-key`: the local dev API key, for the sign-in form's pre-fill under `npm start`.
 */
export function mountConsole(app: AppRouter): void {
  app.use("*", consolePages());
  app.get("/console/dev-key", (c) => {
    const key = localDevKey(c.req.raw, c.env);
    if (!key) throw new ApiError("not_found", "no such route");
    // Defence in depth beside the Sec-Fetch-Site check: no CORS grant on this one response.
    c.header("Access-Control-Allow-Origin", undefined);
    return c.json({ key }, 200, { "Cache-Control": "no-store" });
  });
}

/** A variable only `npm start` sets (wrangler dev --var), hence not in wrangler.toml nor in Env. */
interface DevConsoleEnv {
  CONSOLE_DEV_KEY?: string;
}

/** Serves the console's index.html to page navigations of console paths; everything else goes on. */
function consolePages(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let room: JoinPage = { kind: "console" };
    if (isJoinLink(c.req.raw, c.req.path)) room = await joinPageFor(c.env, c.req.path.slice("/join/".length));
    else if (!isPageNavigation(c.req.raw) || !isConsolePath(c.req.path)) return next();
    // A notice is a different document than the cached index.html: no conditional request for it.
    const headers = room.kind === "console" ? c.req.raw.headers : undefined;
    const index = await c.env.ASSETS.fetch(
      new Request(new URL("/", c.req.url), { method: c.req.method, headers }),
    );
    // A fresh Response: the asset server's headers are immutable, and the middleware after us adds some.
    const page = room.kind === "console" ? new Response(index.body, index) : joinNoticePage(index, room.kind);
    page.headers.set("Vary", "Sec-Fetch-Mode, Accept, Authorization, x-api-key");
    c.res = page;
  };
}

/** A GET or HEAD of a join link, from whatever client (a join link is only ever a page). */
function isJoinLink(request: Request, path: string): boolean {
  return (request.method === "GET" || request.method === "HEAD") && consolePageOf(path) === "room";
}

/**
 * A browser loading a page: GET or HEAD, `Sec-Fetch-Mode: navigate` (or, from a client that does not
 * send fetch metadata, an Accept that names text/html), and no API key, which a navigation never has.
 */
export function isPageNavigation(request: Request): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  if (request.headers.has("authorization") || request.headers.has("x-api-key")) return false;
  const mode = request.headers.get("sec-fetch-mode");
  if (mode !== null) return mode === "navigate";
  return (request.headers.get("accept") ?? "").includes("text/html");
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * The dev key, when all of these hold: `npm start` set CONSOLE_DEV_KEY (never set in a deployment), the
 * request was addressed to a loopback host (a DNS-rebinding page has its own host name), and it comes
 * from the console's own origin (a page of another site sends Sec-Fetch-Site cross-site, or its
 * Origin). Whoever can reach loopback could read the key file anyway.
 */
export function localDevKey(request: Request, env: object): string | null {
  const key = (env as DevConsoleEnv).CONSOLE_DEV_KEY;
  if (!key) return null;
  const url = new URL(request.url);
  if (!LOOPBACK_HOSTS.has(url.hostname)) return null;
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") return null;
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== url.origin) return null;
  return key;
}
