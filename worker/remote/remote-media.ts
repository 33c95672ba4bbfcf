import { GuardedFetchError, guardedFetch, readBounded } from "../../protocol/guarded-fetch.ts";
import type { TaskSource } from "../../protocol/task.ts";
import type { TaskFailureCode } from "../../protocol/task-failure.ts";
import type { OutboundFetch } from "../outbound-fetch.ts";
import { RemoteTierError } from "./remote-failure.ts";
import type { RemoteAudio } from "./remote-transcript.ts";

/**
 * The most media a remote tier is sent. The Worker holds the file in memory to send it (128 MB per
 * isolate), so the cap is well under that; larger files need a node (which streams and decodes).
 */
export const REMOTE_MAX_MEDIA_BYTES = 48 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 60_000;

/**
 * The task's audio as bytes: the stored object from R2, or the file_url fetched by `send` (worker/
 * outbound-fetch.ts: through npm start's egress guard where there is one) under the SSRF guard (the URL
 * policy on every redirect hop) and the size cap. Problems are the media failure codes.
 */
export async function readTaskMedia(
  media: R2Bucket,
  source: TaskSource,
  allowlist: ReadonlySet<string>,
  send: OutboundFetch,
): Promise<RemoteAudio> {
  if (source.type === "object") {
    const object = await media.get(source.object_key);
    if (!object) throw permanent("media_unreachable", "the uploaded object is gone from storage");
    if (object.size > REMOTE_MAX_MEDIA_BYTES) throw tooLarge(object.size);
    if (object.size === 0) throw permanent("media_empty", "the uploaded file is empty");
    return {
      bytes: new Uint8Array(await object.arrayBuffer()),
      filename: source.object_key.split("/").at(-1) ?? "audio",
      contentType: object.httpMetadata?.contentType ?? "application/octet-stream",
    };
  }
  if (source.type === "url") return fetchGuarded(source.url, allowlist, send);
  throw permanent("invalid_params", "the task has no media source");
}

async function fetchGuarded(
  fileUrl: string,
  allowlist: ReadonlySet<string>,
  send: OutboundFetch,
): Promise<RemoteAudio> {
  let fetched: { response: Response; url: URL };
  try {
    fetched = await guardedFetch(fileUrl, (url) => sendHop(url, send), { allowlist });
  } catch (error) {
    if (!(error instanceof GuardedFetchError)) throw error;
    const { failure } = error;
    if (failure.kind === "refused") {
      const what = failure.hop === 0 ? "file_url" : "a redirect of file_url";
      throw permanent("media_unreachable", `${what} is refused: ${failure.reason}`);
    }
    throw permanent("media_unreachable", `file_url: ${error.message}`);
  }
  const { response, url } = fetched;
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw permanent("media_unreachable", `${url.host} answered HTTP ${response.status} for file_url`);
  }
  const read = await readBounded(response.body, REMOTE_MAX_MEDIA_BYTES);
  if (!read.ok) throw tooLarge(read.over);
  if (read.bytes.byteLength === 0) throw permanent("media_empty", "file_url gave an empty file");
  return {
    bytes: read.bytes,
    filename: url.pathname.split("/").at(-1) || "audio",
    contentType: response.headers.get("content-type") ?? "application/octet-stream",
  };
}

/** One hop of the file_url download; a network failure is a media failure. */
async function sendHop(url: URL, send: OutboundFetch): Promise<Response> {
  try {
    return await send(url, { redirect: "manual", signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch {
    throw permanent("media_unreachable", `could not fetch file_url from ${url.host}`);
  }
}

function tooLarge(size: number): RemoteTierError {
  return permanent(
    "media_too_large",
    `the remote recognition tier takes media up to ${REMOTE_MAX_MEDIA_BYTES / 1024 / 1024} MiB (this one: at least ${(size / 1024 / 1024).toFixed(1)} MiB); ` +
      "send a smaller or lower-bitrate file",
  );
}

function permanent(code: TaskFailureCode, message: string): RemoteTierError {
  return new RemoteTierError({ code, message }, false);
}
