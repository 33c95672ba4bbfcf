/**
 * The local egress guard of `npm start`: wrangler dev's workerd may reach private and loopback
 * addresses (miniflare allows them, and wrangler 4.86 offers no setting to change it), so the Worker
 * sends every fetch of a client's URL here instead (EGRESS_GUARD_URL, worker/outbound-fetch.ts), naming
 * the target in a header. The guard applies the URL policy again and connects only to public addresses
 * (the inference node's connect-time check), or to an exact `host:port` of URL_ALLOWLIST. A refused
 * target is a dropped connection, which the Worker sees as the network failure it is.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pipeline } from "node:stream/promises";
import { request } from "undici";
import { publicOnly } from "../../inference-node/media/public-only-dispatcher.ts";
import { EGRESS_TARGET_HEADER } from "../../protocol/guarded-fetch.ts";
import { checkUrl } from "../../protocol/url-policy.ts";

/** Headers that describe one connection, not the message; never passed on. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  EGRESS_TARGET_HEADER,
]);

function endToEnd(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>) {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name.toLowerCase())) kept[name] = value;
  }
  return kept;
}

export interface EgressGuard {
  /** Origin the Worker sends its guarded fetches to, e.g. http://127.0.0.1:40321. */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the guard on 127.0.0.1 (a free port).
 *
 * @example const guard = await startEgressGuard(parseAllowlist(process.env.URL_ALLOWLIST));
 */
export async function startEgressGuard(allowlist: ReadonlySet<string>): Promise<EgressGuard> {
  const server: Server = createServer(async (req, res) => {
    const verdict = checkUrl(String(req.headers[EGRESS_TARGET_HEADER] ?? ""), { allowlist });
    if (!verdict.ok) return void req.socket.destroy();
    const url = verdict.url;
    const port = url.port || (url.protocol === "https:" ? "443" : "80");
    const allowlisted = allowlist.has(`${url.hostname}:${port}`);
    const method = req.method ?? "GET";
    try {
      const answer = await request(url, {
        method: method as "GET",
        headers: endToEnd(req.headers),
        body: method === "GET" || method === "HEAD" ? undefined : req,
        ...(allowlisted ? {} : { dispatcher: publicOnly }),
      });
      res.writeHead(answer.statusCode, endToEnd(answer.headers));
      await pipeline(answer.body, res);
    } catch {
      // Refused (a non-public address), unreachable or cut off: the Worker sees a failed connection.
      req.socket.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
