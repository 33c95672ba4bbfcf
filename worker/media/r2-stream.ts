import { ApiError } from "../errors.ts";
import { parseRange } from "./range.ts";

/**
 * Streams an R2 object honouring HTTP Range (206 with Content-Range, 416 when unsatisfiable),
 * so players can seek and nodes can resume.
 */
export async function streamObject(
  bucket: R2Bucket,
  key: string,
  rangeHeader: string | null,
): Promise<Response> {
  const head = await bucket.head(key);
  if (!head) throw new ApiError("not_found", "media not found");
  const range = parseRange(rangeHeader, head.size);
  const headers = new Headers({
    "Accept-Ranges": "bytes",
    "Content-Type": head.httpMetadata?.contentType ?? "application/octet-stream",
    ETag: head.httpEtag,
  });
  if (range === "unsatisfiable") {
    headers.set("Content-Range", `bytes */${head.size}`);
    return new Response(null, { status: 416, headers });
  }
  const object = await bucket.get(key, range ? { range } : {});
  if (!object) throw new ApiError("not_found", "media not found");
  if (!range) {
    headers.set("Content-Length", String(head.size));
    return new Response(object.body, { status: 200, headers });
  }
  headers.set("Content-Length", String(range.length));
  headers.set("Content-Range", `bytes ${range.offset}-${range.offset + range.length - 1}/${head.size}`);
  return new Response(object.body, { status: 206, headers });
}
