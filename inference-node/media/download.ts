import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { MediaError } from "./media-error.ts";

export interface DownloadedMedia {
  path: string;
  bytes: number;
  /** Removes the temporary file and its folder. */
  remove: () => Promise<void>;
}

/**
 * The slowest a download may run: at least `bytesPerSec` a second on average over each successive
 * `windowMs` once the response has begun (VOXEDGE_MEDIA_MIN_BYTES_PER_SEC; curl's
 * --speed-limit/--speed-time).
 */
export interface MinimumRate {
  bytesPerSec: number;
  windowMs: number;
}

/** The window a download's rate is judged over: a minute, long enough for a stalled link to recover. */
export const MEDIA_RATE_WINDOW_MS = 60_000;

/** The part of a fetch Response that saving needs (global fetch and undici's both fit). */
export interface MediaResponse {
  body: ReadableStream<Uint8Array> | null;
  headers: { get(name: string): string | null };
}

/**
 * Streams a response body into a temporary file, refusing more than `maxBytes` and, with `minRate`, a
 * body that arrives slower than that. A file (not a pipe) lets ffmpeg seek, which containers like MP4
 * with the index at the end need; memory stays flat. `onData` is called for every chunk.
 */
export async function saveToTempFile(
  response: MediaResponse,
  maxBytes: number,
  options: { dir?: string; signal?: AbortSignal; onData?: () => void; minRate?: MinimumRate } = {},
): Promise<DownloadedMedia> {
  if (!response.body) throw new MediaError("media_unreachable", "the media response has no body");
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes)
    throw new MediaError("media_too_large", `the media is larger than the ${formatBytes(maxBytes)} limit`);
  const folder = await mkdtemp(join(options.dir ?? tmpdir(), "voxedge-media-"));
  const path = join(folder, "source");
  const remove = () => rm(folder, { recursive: true, force: true });
  let bytes = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      options.onData?.();
      if (bytes > maxBytes)
        done(
          new MediaError("media_too_large", `the media is larger than the ${formatBytes(maxBytes)} limit`),
        );
      else done(null, chunk);
    },
  });
  const rate =
    options.minRate &&
    holdToRate(
      options.minRate,
      () => bytes,
      (error) => limit.destroy(error),
    );
  try {
    const body = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream<Uint8Array>);
    await pipeline(body, limit, createWriteStream(path), { signal: options.signal });
  } catch (error) {
    await remove();
    if (error instanceof MediaError || options.signal?.aborted) throw error;
    throw new MediaError(
      "media_unreachable",
      `the media download broke off: ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    if (rate) clearInterval(rate);
  }
  if (bytes === 0) {
    await remove();
    throw new MediaError("media_empty", "the media file is empty");
  }
  return { path, bytes, remove };
}

/** Checks the bytes received at the end of every window; too few fail the download through `fail`. */
function holdToRate(minRate: MinimumRate, received: () => number, fail: (error: MediaError) => void) {
  let atLastCheck = 0;
  return setInterval(() => {
    const bytes = received();
    if (bytes - atLastCheck < (minRate.bytesPerSec * minRate.windowMs) / 1000) {
      fail(
        new MediaError(
          "media_unreachable",
          `the media arrived at less than ${formatRate(minRate.bytesPerSec)} for ${minRate.windowMs / 1000} s`,
        ),
      );
    }
    atLastCheck = bytes;
  }, minRate.windowMs);
}

function formatRate(bytesPerSec: number): string {
  return bytesPerSec >= 1024 ? `${Math.round(bytesPerSec / 1024)} KiB/s` : `${bytesPerSec} B/s`;
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${bytes / 1024 ** 3} GB` : `${Math.round(bytes / 1024 ** 2)} MB`;
}
