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
 * Streams a response body into a temporary file, refusing more than `maxBytes`. A file (not a pipe)
 * lets ffmpeg seek, which containers like MP4 with the index at the end need; memory stays flat.
 */
/** The part of a fetch Response that saving needs (global fetch and undici's both fit). */
export interface MediaResponse {
  body: ReadableStream<Uint8Array> | null;
  headers: { get(name: string): string | null };
}

export async function saveToTempFile(
  response: MediaResponse,
  maxBytes: number,
  options: { dir?: string; signal?: AbortSignal; onData?: () => void } = {},
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
  }
  if (bytes === 0) {
    await remove();
    throw new MediaError("media_empty", "the media file is empty");
  }
  return { path, bytes, remove };
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${bytes / 1024 ** 3} GB` : `${Math.round(bytes / 1024 ** 2)} MB`;
}
