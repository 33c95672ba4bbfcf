import { GuardedFetchError, guardedFetch } from "../../protocol/guarded-fetch.ts";
import { MAX_MEDIA_BYTES } from "../../protocol/media-limits.ts";
import { ApiError } from "../errors.ts";
import { tooLarge } from "../media/r2-upload.ts";
import type { OutboundFetch } from "../outbound-fetch.ts";
import { describeNonMedia, judgeDeclaredType, SNIFF_BYTES, sniffNonMedia } from "./media-sniff.ts";

const TIMEOUT_MS = 10_000;
/** Answers to HEAD that may only mean "HEAD is not supported here" (S3 URLs presigned for GET give 403). */
const HEAD_REFUSED = new Set([403, 405, 501]);

export interface ProbeOptions {
  /** host:port entries the SSRF guard lets through. */
  allowlist: ReadonlySet<string>;
  /** How one request goes out (worker/outbound-fetch.ts). */
  fetch: OutboundFetch;
}

/** One hop's answer: its status and headers, and the file's first bytes when the hop was a GET. */
interface ProbeAnswer {
  status: number;
  headers: Headers;
  body: null;
  firstBytes: Uint8Array | null;
}

/**
 * Checks during the request that file_url can be fetched and answers media, reading headers and at
 * most the first SNIFF_BYTES: the SSRF-guarded fetch (protocol/guarded-fetch.ts: the policy on every
 * hop, at most 5 redirects), each hop a HEAD or, where HEAD is refused, a ranged GET of the first bytes.
 * An unusable URL is a 400 that names the cause; a file over 2 GB is a 413. A server that reports no
 * size passes: the node enforces the limit again while downloading. A document instead of media (a
 * share host's sign-in or expired-link page, a JSON error) is a 400 too (media-sniff.ts): by its
 * Content-Type, or, for none or a generic one, by its first bytes, fetched with one more ranged GET
 * when the hop was a HEAD.
 *
 * @example await probeMediaUrl("https://example.com/talk.mp3", { allowlist: new Set(), fetch: outboundFetch(env) })
 */
export async function probeMediaUrl(fileUrl: string, options: ProbeOptions): Promise<void> {
  try {
    const hop = (url: URL) => probeHop(url, options.fetch);
    const { response, url } = await guardedFetch(fileUrl, hop, { allowlist: options.allowlist });
    judge(response, url);
    await judgeContent(response, url, options);
  } catch (error) {
    if (error instanceof GuardedFetchError) throw unusable(refusal(error));
    throw error;
  }
}

/**
 * Refuses an answer that is a document, not media: by its declared type, else by its first bytes (those
 * of the fallback GET, or of a ranged GET of the URL that answered, under the same guard).
 */
async function judgeContent(answer: ProbeAnswer, url: URL, options: ProbeOptions): Promise<void> {
  const declared = judgeDeclaredType(answer.headers.get("content-type"));
  if (declared.kind === "not_media") throw unusable(describeNonMedia(declared.what, url.host));
  if (declared.kind === "media") return;
  const firstBytes = answer.firstBytes ?? (await fetchFirstBytes(url, options));
  const sniffed = firstBytes && sniffNonMedia(firstBytes);
  if (sniffed) throw unusable(describeNonMedia(sniffed, url.host));
}

/** The first bytes of `url` by a ranged GET; null where that GET does not succeed (the HEAD did). */
async function fetchFirstBytes(url: URL, options: ProbeOptions): Promise<Uint8Array | null> {
  const get = (hop: URL) => send(hop, "GET", options.fetch);
  const { response } = await guardedFetch(url.toString(), get, { allowlist: options.allowlist });
  return response.status === 200 || response.status === 206 ? response.firstBytes : null;
}

function refusal(error: GuardedFetchError): string {
  const { failure } = error;
  if (failure.kind !== "refused") return error.message;
  return `${failure.hop === 0 ? "file_url" : "a redirect of file_url"} is refused: ${failure.reason}`;
}

function unusable(reason: string): ApiError {
  return new ApiError("bad_request", `file_url is not usable: ${reason}`);
}

/** One hop: HEAD, or a ranged GET where HEAD is refused. */
async function probeHop(url: URL, fetch: OutboundFetch): Promise<ProbeAnswer> {
  const answer = await send(url, "HEAD", fetch);
  return HEAD_REFUSED.has(answer.status) ? send(url, "GET", fetch) : answer;
}

/**
 * One request without following redirects; a GET asks for the first SNIFF_BYTES and reads no more
 * (a server that ignores the Range sends the whole file: the rest is dropped unread).
 */
async function send(url: URL, method: "HEAD" | "GET", fetch: OutboundFetch): Promise<ProbeAnswer> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      redirect: "manual",
      headers: method === "GET" ? { Range: `bytes=0-${SNIFF_BYTES - 1}` } : {},
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (cause) {
    throw unreachable(cause, url);
  }
  const answer = { status: response.status, headers: response.headers, body: null, firstBytes: null };
  const succeeded = response.status === 200 || response.status === 206;
  if (method === "HEAD" || !succeeded || !response.body) {
    await response.body?.cancel();
    return answer;
  }
  try {
    return { ...answer, firstBytes: await readFirstBytes(response.body) };
  } catch (cause) {
    throw unreachable(cause, url);
  }
}

function unreachable(cause: unknown, url: URL): ApiError {
  if (cause instanceof Error && (cause.name === "TimeoutError" || cause.name === "AbortError")) {
    return unusable(`${url.host} did not answer within ${TIMEOUT_MS / 1000} s`);
  }
  return unusable(`could not reach ${url.host} (DNS lookup or connection failed)`);
}

/** Up to SNIFF_BYTES from the start of a body, reading no further than needed. */
async function readFirstBytes(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const reader = body.getReader();
  const head = new Uint8Array(SNIFF_BYTES);
  let length = 0;
  try {
    while (length < SNIFF_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      const take = value.subarray(0, SNIFF_BYTES - length);
      head.set(take, length);
      length += take.byteLength;
    }
    return head.subarray(0, length);
  } finally {
    // The rest of the file is not wanted; a stream that already failed has nothing left to drop.
    await reader.cancel().catch(() => undefined);
  }
}

/** Passes a successful answer within the size limit; anything else is the 400 naming what the server said. */
function judge(response: ProbeAnswer, url: URL): void {
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
function reportedSize(response: ProbeAnswer): number | null {
  if (response.status === 206) {
    const total = /\/(\d+)\s*$/.exec(response.headers.get("content-range") ?? "")?.[1];
    return total ? Number(total) : null;
  }
  const length = response.headers.get("content-length");
  return length && /^\d+$/.test(length) ? Number(length) : null;
}
