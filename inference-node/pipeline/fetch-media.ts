import type { Lease } from "../../protocol/node.ts";
import { type DownloadedMedia, saveToTempFile } from "../media/download.ts";
import { guardedFetch } from "../media/guarded-fetch.ts";
import { MediaError } from "../media/media-error.ts";
import type { WorkerClient } from "../worker-client.ts";

export interface MediaSourceOptions {
  client: WorkerClient;
  maxBytes: number;
  /** host:port entries exempt from the SSRF address rule (tests, private deployments). */
  allowlist: ReadonlySet<string>;
  tempDir?: string;
  signal: AbortSignal;
}

/**
 * Brings a leased task's media to a local temporary file: stored objects stream through the Worker
 * (the lease's `source_path`), URLs are fetched directly under the SSRF guard.
 */
export async function fetchMedia(lease: Lease, options: MediaSourceOptions): Promise<DownloadedMedia> {
  const { signal } = options;
  const source = lease.source;
  let response: Parameters<typeof saveToTempFile>[0];
  if (source.type === "object") {
    if (!lease.source_path)
      throw new MediaError("media_unreachable", "the lease names a stored object but no path to read it");
    response = await options.client.source(lease.source_path, lease.lease_id, signal);
  } else if (source.type === "url") {
    response = await guardedFetch(source.url, { allowlist: options.allowlist, signal });
  } else {
    throw new MediaError("media_unreachable", "the task has no media to transcribe");
  }
  return saveToTempFile(response, options.maxBytes, { dir: options.tempDir, signal });
}
