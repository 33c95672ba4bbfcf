import { GuardedFetchError, guardedFetch } from "../../protocol/guarded-fetch.ts";
import { MAX_MEDIA_BYTES } from "../../protocol/media-limits.ts";
import { ApiError } from "../errors.ts";
import { tooLarge } from "../media/r2-upload.ts";
import type { OutboundFetch } from "../outbound-fetch.ts";

const TIMEOUT_MS = 10_000;
/** Answers to HEAD that may only mean "HEAD is not supported here" (S3 URLs presigned for GET give 403). */
const HEAD_REFUSED = new Set([403, 405, 501]);

export interface ProbeOptions {
  /** host:port entries the SSRF guard lets through. */
  allowlist: ReadonlySet<string>;
  /** How one request goes out (worker/outbound-fetch.ts). */
  fetch: OutboundFetch;
}

/**
 * Checks during the request that file_url can be fetched, reading headers only: the SSRF-guarded fetch
 * (protocol/guarded-fetch.ts: the policy on every hop, at most 5 redirects), each hop a HEAD or, where
 * HEAD is refused, a GET of one byte. An unusable URL is a 400 that names the cause; a file over 2 GB
 * is a 413. A server that reports no size passes: the node enforces the limit again while downloading.
 *
 * @example await probeMediaUrl("https://example.com/talk.mp3", { allowlist: new Set(), fetch: outboundFetch(env) })
 */
export async function probeMediaUrl(fileUrl: string, options: ProbeOptions): Promise<void> {
  try {
    const hop = (url: URL) => probeHop(url, options.fetch);
    const { response, url } = await guardedFetch(fileUrl, hop, { allowlist: options.allowlist });
    judge(response, url);
  } catch (error) {
    if (error instanceof GuardedFetchError) throw unusable(refusal(error));
    throw error;
  }
}

function refusal(error: GuardedFetchError): string {
  const { failure } = error;
  if (failure.kind !== "refused") return error.message;
  return `${failure.hop === 0 ? "file_url" : "a redirect of file_url"} is refused: ${failure.reason}`;
}

function unusable(reason: string): ApiError {
  return new ApiError("bad_request", `file_url is not usable: ${reason}`);
}

/** One hop: HEAD, or a one-byte GET where HEAD is refused. */
async function probeHop(url: URL, fetch: OutboundFetch): Promise<Response> {
  const response = await send(url, "HEAD", fetch);
  return HEAD_REFUSED.has(response.status) ? send(url, "GET", fetch) : response;
}

/** One request without following redirects; a GET asks for one byte and drops the body. */
async function send(url: URL, method: "HEAD" | "GET", fetch: OutboundFetch): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      redirect: "manual",
      headers: method === "GET" ? { Range: "bytes=0-0" } : {},
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (cause) {
    if (cause instanceof Error && (cause.name === "TimeoutError" || cause.name === "AbortError")) {
      throw unusable(`${url.host} did not answer within ${TIMEOUT_MS / 1000} s`);
    }
    throw unusable(`could not reach ${url.host} (DNS lookup or connection failed)`);
  }
  await response.body?.cancel();
  return response;
}

/** Passes a successful answer within the size limit; anything else is the 400 naming what the server said. */
function judge(response: Response, url: URL): void {
  if (response.status !== 200 && response.status !== 206) throw unusable(failure(response.status, url.host));
  const size = reportedSize(response);
  if (size !== null && size > MAX_MEDIA_BYTES) throw tooLarge(MAX_MEDIA_BYTES);
  if (size === 0) throw unusable(`${url.host} reports an empty file`);
}

function failure(status: number, host: string): string {
  if (status === 404) return `not found at ${host} (HTTP 404)`;
  if (status === 401 || status === 403) {
    return `access denied by ${host} (HTTP ${status}); the share link may be private or expired`;
  }
  if (status === 410) return `gone from ${host} (HTTP 410); the share link has expired`;
  // Cloudflare's own answers when it cannot reach an origin: 530 (DNS), 521-523 (connection).
  if (status === 530 || (status >= 521 && status <= 523)) {
    return `could not reach ${host} (DNS lookup or connection failed, HTTP ${status})`;
  }
  return `${host} answered HTTP ${status}`;
}

/** Total bytes from Content-Range (a ranged answer) or Content-Length (a whole one). */
function reportedSize(response: Response): number | null {
  if (response.status === 206) {
    const total = /\/(\d+)\s*$/.exec(response.headers.get("content-range") ?? "")?.[1];
    return total ? Number(total) : null;
  }
  const length = response.headers.get("content-length");
  return length && /^\d+$/.test(length) ? Number(length) : null;
}
