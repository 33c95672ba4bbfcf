import type { Lease } from "../../protocol/node.ts";
import { type DownloadedMedia, type MinimumRate, saveToTempFile } from "../media/download.ts";
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
  /**
   * The longest one download may take, from its request to its last byte (VOXEDGE_MEDIA_DOWNLOAD_MAX_SEC):
   * a URL that answers slowly or trickles its bytes would otherwise hold a transcription slot for as long
   * as its server likes.
   */
  downloadMaxMs: number;
  /** The slowest a download may run once its response has begun; unset: no minimum. */
  minRate?: MinimumRate;
  /** Called as the media's bytes arrive: a download in progress is a task alive (lease-loop.ts). */
  onData?: () => void;
}

/** What fetching needs of a lease: where its media is. */
export type MediaLease = Pick<Lease, "lease_id" | "source" | "source_path">;

/**
 * Brings a leased task's media to a local temporary file: stored objects stream through the Worker
 * (the lease's `source_path`), URLs are fetched directly under the SSRF guard, within the download limit.
 */
export function fetchMedia(lease: MediaLease, options: MediaSourceOptions): Promise<DownloadedMedia> {
  return withinDownloadLimit(options, (signal) => download(lease, { ...options, signal }));
}

/**
 * Runs one download under the task's signal and `downloadMaxMs`: a download still running at the limit
 * fails as `media_unreachable`; the task's own abort (a lost lease, a cancel) is passed on as it is.
 *
 * @example const file = await withinDownloadLimit(options, (signal) => downloadTo(dir, url, signal));
 */
export async function withinDownloadLimit<T>(
  options: Pick<MediaSourceOptions, "signal" | "downloadMaxMs">,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  // A timer cleared at the end, not AbortSignal.timeout, whose timer would outlive every download by the limit.
  const limit = new AbortController();
  const timer = setTimeout(() => limit.abort(), options.downloadMaxMs);
  try {
    return await run(AbortSignal.any([options.signal, limit.signal]));
  } catch (error) {
    if (error instanceof MediaError || !limit.signal.aborted || options.signal.aborted) throw error;
    throw new MediaError(
      "media_unreachable",
      `the media did not finish downloading within the ${options.downloadMaxMs / 1000} s limit`,
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
  }
}

async function download(lease: MediaLease, options: MediaSourceOptions): Promise<DownloadedMedia> {
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
  return saveToTempFile(response, options.maxBytes, {
    dir: options.tempDir,
    signal,
    onData: options.onData,
    minRate: options.minRate,
  });
}
