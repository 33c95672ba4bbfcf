import type { TaskSource } from "../../protocol/task.ts";
import type { TaskFailureCode } from "../../protocol/task-failure.ts";
import { checkUrl } from "../../protocol/url-policy.ts";
import { RemoteTierError } from "./remote-failure.ts";
import type { RemoteAudio } from "./remote-transcript.ts";

/**
 * The most media a remote tier is sent. The Worker holds the file in memory to send it (128 MB per
 * isolate), so the cap is well under that; larger files need a node (which streams and decodes).
 */
export const REMOTE_MAX_MEDIA_BYTES = 48 * 1024 * 1024;
const MAX_REDIRECTS = 5;
const FETCH_TIMEOUT_MS = 60_000;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The task's audio as bytes: the stored object from R2, or the file_url fetched under the SSRF guard
 * (the URL policy on every redirect hop) and the size cap. Problems are the media failure codes.
 */
export async function readTaskMedia(
  media: R2Bucket,
  source: TaskSource,
  allowlist: ReadonlySet<string>,
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
  if (source.type === "url") return fetchGuarded(source.url, allowlist);
  throw permanent("invalid_params", "the task has no media source");
}

async function fetchGuarded(fileUrl: string, allowlist: ReadonlySet<string>): Promise<RemoteAudio> {
  let target = fileUrl;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const verdict = checkUrl(target, { allowlist });
    if (!verdict.ok) throw permanent("media_unreachable", `file_url is refused: ${verdict.reason}`);
    let response: Response;
    try {
      response = await fetch(verdict.url, {
        redirect: "manual",
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
    } catch {
      throw new RemoteTierError(
        { code: "media_unreachable", message: `could not fetch file_url from ${verdict.url.host}` },
        false,
      );
    }
    if (REDIRECTS.has(response.status)) {
      await response.body?.cancel();
      const location = response.headers.get("location");
      if (!location)
        throw permanent("media_unreachable", `${verdict.url.host} redirected without a Location`);
      target = new URL(location, verdict.url).toString();
      continue;
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      throw permanent(
        "media_unreachable",
        `${verdict.url.host} answered HTTP ${response.status} for file_url`,
      );
    }
    const bytes = await readCapped(response.body);
    if (bytes.byteLength === 0) throw permanent("media_empty", "file_url gave an empty file");
    return {
      bytes,
      filename: verdict.url.pathname.split("/").at(-1) || "audio",
      contentType: response.headers.get("content-type") ?? "application/octet-stream",
    };
  }
  throw permanent("media_unreachable", `file_url redirected more than ${MAX_REDIRECTS} times`);
}

/** Reads a body whole, stopping as soon as it passes the cap. */
async function readCapped(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > REMOTE_MAX_MEDIA_BYTES) {
      await reader.cancel();
      throw tooLarge(total);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
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
