/**
 * The one SSRF-guarded fetch of a user-supplied URL, for the Worker (file_url probe, the remote tier's
 * download) and the inference node (media download): redirects are followed by hand, the URL policy is
 * applied to every hop before it is sent, and the hops are limited. How one hop is sent is the caller's
 * (the platform's fetch, a HEAD with a GET fallback, a dispatcher that checks resolved addresses), so
 * this module stays free of any runtime.
 */
import { checkUrl } from "./url-policy.ts";

/** Redirects a guarded fetch follows before it gives up. */
export const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The typed reasons a guarded fetch stops; callers turn them into their own errors. */
export type GuardedFetchFailure =
  /** `hop` 0 is the URL as given, 1 and up are redirect targets. */
  | { kind: "refused"; url: string; hop: number; reason: string }
  | { kind: "redirect_without_location"; url: URL; status: number }
  | { kind: "too_many_redirects"; limit: number };

export class GuardedFetchError extends Error {
  constructor(readonly failure: GuardedFetchFailure) {
    super(describe(failure));
    this.name = "GuardedFetchError";
  }
}

/** How one hop is sent: a single request that must not follow redirects itself (redirect: "manual"). */
export type SendHop<R extends HopResponse> = (url: URL, hop: { allowlisted: boolean }) => Promise<R>;

/** What a hop's answer needs to offer: the Response of the Fetch standard or undici's. */
export interface HopResponse {
  status: number;
  headers: { get(name: string): string | null };
  body: { cancel(): Promise<void> } | null;
}

export interface GuardedFetchOptions {
  /** `host:port` entries exempt from the address and port rules (`parseAllowlist`). */
  allowlist?: ReadonlySet<string>;
}

/**
 * Fetches `input` under the URL policy, following redirects by hand. Resolves with the first answer
 * that is not a redirect (whatever its status) and the URL that gave it; throws GuardedFetchError for
 * a refused hop, a redirect without a Location, or more than MAX_REDIRECTS redirects. Errors thrown by
 * `send` pass through unchanged.
 *
 * @example const { response } = await guardedFetch(url, (u) => fetch(u, { redirect: "manual" }), { allowlist });
 */
export async function guardedFetch<R extends HopResponse>(
  input: string,
  send: SendHop<R>,
  options: GuardedFetchOptions = {},
): Promise<{ response: R; url: URL }> {
  let target = input;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const verdict = checkUrl(target, options);
    if (!verdict.ok)
      throw new GuardedFetchError({ kind: "refused", url: target, hop, reason: verdict.reason });
    const url = verdict.url;
    const port = url.port || (url.protocol === "https:" ? "443" : "80");
    const allowlisted = options.allowlist?.has(`${url.hostname}:${port}`) ?? false;
    const response = await send(url, { allowlisted });
    if (!REDIRECTS.has(response.status)) return { response, url };
    await response.body?.cancel();
    const location = response.headers.get("location");
    if (!location)
      throw new GuardedFetchError({ kind: "redirect_without_location", url, status: response.status });
    target = new URL(location, url).toString();
  }
  throw new GuardedFetchError({ kind: "too_many_redirects", limit: MAX_REDIRECTS });
}

function describe(failure: GuardedFetchFailure): string {
  switch (failure.kind) {
    case "refused":
      return `${failure.hop === 0 ? "the URL" : "a redirect"} is refused: ${failure.reason}`;
    case "redirect_without_location":
      return `${failure.url.host} answered HTTP ${failure.status} without a Location`;
    case "too_many_redirects":
      return `more than ${failure.limit} redirects`;
  }
}

/**
 * Reads a body whole, stopping as soon as it passes `maxBytes` (the rest is never read). `over` is
 * the byte count at which it stopped.
 */
export async function readBounded(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<{ ok: true; bytes: Uint8Array } | { ok: false; over: number }> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return { ok: false, over: total };
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { ok: true, bytes };
}

/**
 * The header that names the real target of a request the Worker sends through the local egress guard
 * (scripts/lib/egress-guard.ts, `npm start`), where miniflare would otherwise let it reach any address.
 */
export const EGRESS_TARGET_HEADER = "x-voxedge-egress-target";
