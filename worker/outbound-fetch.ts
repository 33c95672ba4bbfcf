import { workerConfig } from "../platform/config.ts";
import { EGRESS_TARGET_HEADER } from "../protocol/guarded-fetch.ts";

/** One request to a URL a client gave (file_url, a redirect of it, webhook_url). */
export type OutboundFetch = (url: URL, init?: RequestInit) => Promise<Response>;

/**
 * How the Worker fetches a client's URL: straight out, or, where EGRESS_GUARD_URL is set (`npm start`),
 * through the local egress guard (scripts/lib/egress-guard.ts), which connects only to public addresses:
 * wrangler dev's workerd would reach private and loopback ones a public-looking name resolves to. The
 * request goes unchanged but for its destination; the target travels in a header.
 *
 * @example const response = await outboundFetch(env)(url, { redirect: "manual" });
 */
export function outboundFetch(env: Env): OutboundFetch {
  const guard = workerConfig(env).egressGuardUrl;
  if (!guard) return (url, init) => fetch(url, init);
  return (url, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set(EGRESS_TARGET_HEADER, url.href);
    return fetch(guard, { ...init, headers });
  };
}
