import { ApiError } from "../errors.ts";

/** R2 multipart parts must be at least 5 MiB and, but for the last, all the same size. */
const DEFAULT_PART_SIZE = 8 * 1024 * 1024;

export interface StreamToR2Options {
  /** Bytes the body declares (Content-Length), or null when unknown (chunked, a multipart file part). */
  length: number | null;
  /** More bytes than this is a 413. */
  maxBytes: number;
  httpMetadata?: R2HTTPMetadata;
  customMetadata?: Record<string, string>;
  /** Part size for bodies of unknown length; tests shrink it. */
  partSize?: number;
}

/** The Content-Length a request declares, or null when absent or not a plain number. */
export function declaredLength(headers: Headers): number | null {
  const value = headers.get("content-length");
  return value && /^\d+$/.test(value) ? Number(value) : null;
}

/** The 413 for a file over the limit. */
export function tooLarge(maxBytes: number): ApiError {
  return new ApiError("payload_too_large", `the file is larger than the limit of ${maxBytes} bytes`);
}

/**
 * Streams a body into R2 without holding it in memory. A known length goes through a FixedLengthStream
 * (R2 needs the length up front); an unknown one becomes a multipart upload of fixed-size parts, so
 * memory stays at one part. Counting bytes either way, it stops with 413 past `maxBytes`.
 *
 * @example await streamToR2(env.MEDIA, key, request.body, { length: declaredLength(request.headers), maxBytes })
 */
export async function streamToR2(
  bucket: R2Bucket,
  key: string,
  body: ReadableStream<Uint8Array> | null,
  options: StreamToR2Options,
): Promise<{ size: number }> {
  if (options.length !== null && options.length > options.maxBytes) throw tooLarge(options.maxBytes);
  const put = { httpMetadata: options.httpMetadata, customMetadata: options.customMetadata };
  if (!body) {
    await bucket.put(key, new Uint8Array(0), put);
    return { size: 0 };
  }
  if (options.length !== null) return putKnownLength(bucket, key, body, options.length, put);
  return putUnknownLength(bucket, key, body, options.maxBytes, options.partSize ?? DEFAULT_PART_SIZE, put);
}

async function putKnownLength(
  bucket: R2Bucket,
  key: string,
  body: ReadableStream<Uint8Array>,
  length: number,
  put: R2PutOptions,
): Promise<{ size: number }> {
  const { readable, writable } = new FixedLengthStream(length);
  let counted = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      counted += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const [stored] = await Promise.allSettled([
    bucket.put(key, readable, put),
    body.pipeThrough(counter).pipeTo(writable),
  ]);
  // A body that ends early or runs long breaks the put: the client's fault, not storage's.
  if (counted !== length) {
    throw new ApiError("bad_request", `the body did not match its Content-Length of ${length} bytes`);
  }
  if (stored.status === "rejected") throw stored.reason;
  return { size: length };
}

async function putUnknownLength(
  bucket: R2Bucket,
  key: string,
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  partSize: number,
  put: R2PutOptions,
): Promise<{ size: number }> {
  const reader = body.getReader();
  const buffer = new Uint8Array(partSize);
  let filled = 0;
  let size = 0;
  let upload: R2MultipartUpload | null = null;
  const parts: R2UploadedPart[] = [];
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      const chunk = next.value;
      size += chunk.byteLength;
      if (size > maxBytes) throw tooLarge(maxBytes);
      for (let offset = 0; offset < chunk.byteLength; ) {
        const n = Math.min(partSize - filled, chunk.byteLength - offset);
        buffer.set(chunk.subarray(offset, offset + n), filled);
        filled += n;
        offset += n;
        if (filled === partSize) {
          upload ??= await bucket.createMultipartUpload(key, put);
          // uploadPart has sent the bytes once it resolves, so the buffer can be refilled.
          parts.push(await upload.uploadPart(parts.length + 1, buffer));
          filled = 0;
        }
      }
    }
    if (!upload) {
      await bucket.put(key, buffer.subarray(0, filled), put);
      return { size };
    }
    if (filled > 0) parts.push(await upload.uploadPart(parts.length + 1, buffer.subarray(0, filled)));
    await upload.complete(parts);
    return { size };
  } catch (cause) {
    await upload?.abort().catch(() => undefined);
    await reader.cancel().catch(() => undefined);
    throw cause;
  }
}
