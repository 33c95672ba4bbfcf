import { VoxedgeApiError } from "../../../client/errors.ts";

/** How far an upload is: bytes sent of the total, and the recent rate in bytes per second. */
export interface UploadProgress {
  loaded: number;
  total: number;
  bytesPerSec: number | null;
}

/** Bytes per second over the last `windowMs` of progress samples (a steadier figure than the last step). */
export class RateMeter {
  private samples: { at: number; loaded: number }[] = [];
  constructor(private readonly windowMs = 2_000) {}

  add(at: number, loaded: number): number | null {
    this.samples.push({ at, loaded });
    while (this.samples.length > 2 && at - (this.samples[0]?.at ?? at) > this.windowMs) this.samples.shift();
    const first = this.samples[0];
    if (!first || at - first.at < 200) return null;
    return ((loaded - first.loaded) * 1000) / (at - first.at);
  }
}

/**
 * PUTs `body` to a presigned `url` with XMLHttpRequest, whose upload events (unlike fetch's, so not
 * the typed client's either) report progress. Content-Type must be the one the URL was presigned for. Rejects a VoxedgeApiError, or an
 * AbortError when `signal` aborts.
 *
 * @example await putWithProgress(presign.upload_url, file, file.type, (p) => draw(p.loaded / p.total));
 */
export function putWithProgress(
  url: string,
  body: Blob,
  contentType: string,
  onProgress: (progress: UploadProgress) => void,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const rate = new RateMeter();
    xhr.open("PUT", url);
    xhr.setRequestHeader("Content-Type", contentType);
    xhr.upload.onprogress = (event) => {
      const total = event.lengthComputable ? event.total : body.size;
      onProgress({ loaded: event.loaded, total, bytesPerSec: rate.add(performance.now(), event.loaded) });
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve();
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(xhr.responseText);
      } catch {
        // storage answered something other than JSON; the status says enough
      }
      reject(VoxedgeApiError.fromBody(xhr.status, parsed, xhr.statusText));
    };
    xhr.onerror = () => reject(VoxedgeApiError.network("upload failed"));
    xhr.onabort = () => reject(new DOMException("upload cancelled", "AbortError"));
    signal?.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(body);
  });
}
