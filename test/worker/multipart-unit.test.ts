import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  MultipartError,
  multipartBoundary,
  readFormParts,
  readTextPart,
} from "../../worker/ingest/multipart.ts";
import { streamToR2 } from "../../worker/media/r2-upload.ts";
import { bytes, sha256 } from "./ingest-helpers.ts";

const encoder = new TextEncoder();
const BOUNDARY = "----vxBoundary7MA4YWxk";

function concat(...pieces: (string | Uint8Array)[]): Uint8Array {
  const parts = pieces.map((piece) => (typeof piece === "string" ? encoder.encode(piece) : piece));
  const out = new Uint8Array(parts.reduce((n, part) => n + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/** A stream that hands out `data` in chunks of `size` bytes, as a network would. */
function chunked(data: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= data.byteLength) return controller.close();
      controller.enqueue(data.slice(offset, offset + size));
      offset += size;
    },
  });
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// The file's bytes contain a CRLF, dashes and most of the boundary: none of it may end the part.
const FILE = concat("\r\n--", BOUNDARY.slice(0, -1), "\r\n\r\n--", bytes(300));
const BODY = concat(
  "preamble to ignore\r\n",
  `--${BOUNDARY}\r\n`,
  'Content-Disposition: form-data; name="language"\r\n\r\n',
  "vi",
  `\r\n--${BOUNDARY}\r\n`,
  'Content-Disposition: form-data; name="file"; filename="b\\"ài.mp3"\r\n',
  "Content-Type: audio/mpeg\r\n\r\n",
  FILE,
  `\r\n--${BOUNDARY}  \r\n`, // transport padding after a boundary is allowed
  "content-disposition: form-data; name=\"context\"; filename*=UTF-8''ghi%20ch%C3%BA.txt\r\n\r\n",
  "",
  `\r\n--${BOUNDARY}--\r\nepilogue`,
);

describe("readFormParts", () => {
  it("yields every part with its headers and exact bytes, however the body is chunked", async () => {
    for (const size of [1, 2, 3, 7, 31, 64, 4096]) {
      const seen: { name: string; filename: string | null; type: string | null; data: Uint8Array }[] = [];
      for await (const part of readFormParts(chunked(BODY, size), BOUNDARY)) {
        seen.push({
          name: part.name,
          filename: part.filename,
          type: part.contentType,
          data: await readAll(part.body),
        });
      }
      expect(
        seen.map((p) => [p.name, p.filename, p.type]),
        `chunk ${size}`,
      ).toEqual([
        ["language", null, null],
        ["file", 'b"ài.mp3', "audio/mpeg"],
        ["context", "ghi chú.txt", null],
      ]);
      expect(new TextDecoder().decode(seen[0]!.data)).toBe("vi");
      expect(seen[1]!.data).toEqual(FILE);
      expect(seen[2]!.data.byteLength).toBe(0);
    }
  });

  it("skips what a consumer leaves unread of a part", async () => {
    const names = [];
    for await (const part of readFormParts(chunked(BODY, 5), BOUNDARY)) names.push(part.name);
    expect(names).toEqual(["language", "file", "context"]);
  });

  it("reads text fields, refusing one over the limit", async () => {
    const parts = readFormParts(chunked(BODY, 16), BOUNDARY);
    const first = await parts.next();
    expect(first.done).toBe(false);
    if (first.done) return;
    expect(await readTextPart(first.value, 2)).toBe("vi");
    const second = await parts.next();
    if (second.done) throw new Error("expected the file part");
    await expect(readTextPart(second.value, 100)).rejects.toThrow(/longer than 100 bytes/);
  });

  it("throws MultipartError for bodies that are not well-formed", async () => {
    const cases: [string, Uint8Array][] = [
      ["wrong boundary", concat("--other\r\n\r\n")],
      ["truncated", BODY.slice(0, BODY.byteLength - 40)],
      ["no disposition", concat(`--${BOUNDARY}\r\nContent-Type: text/plain\r\n\r\nx\r\n--${BOUNDARY}--`)],
      ["no name", concat(`--${BOUNDARY}\r\nContent-Disposition: form-data\r\n\r\nx\r\n--${BOUNDARY}--`)],
      ["garbage after boundary", concat(`--${BOUNDARY}xx\r\n\r\nx\r\n--${BOUNDARY}--`)],
    ];
    for (const [label, body] of cases) {
      const run = async () => {
        for await (const part of readFormParts(chunked(body, 8), BOUNDARY)) await readAll(part.body);
      };
      await expect(run(), label).rejects.toBeInstanceOf(MultipartError);
    }
  });
});

describe("multipartBoundary", () => {
  it("reads the boundary of multipart/form-data only", () => {
    expect(multipartBoundary(`multipart/form-data; boundary=${BOUNDARY}`)).toBe(BOUNDARY);
    expect(multipartBoundary('Multipart/Form-Data; charset=utf-8; boundary="a b:c"')).toBe("a b:c");
    expect(multipartBoundary("multipart/form-data")).toBeNull();
    expect(multipartBoundary("application/json; boundary=x")).toBeNull();
    expect(multipartBoundary(`multipart/form-data; boundary=${"x".repeat(71)}`)).toBeNull();
    expect(multipartBoundary(null)).toBeNull();
  });
});

describe("streamToR2", () => {
  const MiB = 1024 * 1024;

  it("stores a body of known length through a FixedLengthStream", async () => {
    const data = bytes(100_000, 3);
    const { size } = await streamToR2(env.MEDIA, "t/known", chunked(data, 7000), {
      length: data.byteLength,
      maxBytes: MiB,
      httpMetadata: { contentType: "audio/wav" },
      customMetadata: { owner_key_id: "key_x" },
    });
    expect(size).toBe(data.byteLength);
    const object = await env.MEDIA.get("t/known");
    expect(await sha256(await object!.arrayBuffer())).toBe(await sha256(data));
    expect(object!.httpMetadata?.contentType).toBe("audio/wav");
    expect(object!.customMetadata).toEqual({ owner_key_id: "key_x" });
  });

  it("answers 400 when the body does not match its declared length", async () => {
    for (const length of [99, 101]) {
      const attempt = streamToR2(env.MEDIA, "t/mismatch", chunked(bytes(100), 10), { length, maxBytes: MiB });
      await expect(attempt).rejects.toMatchObject({ status: 400 });
    }
  });

  it("stores a body of unknown length in fixed-size multipart parts", async () => {
    const data = bytes(12 * MiB + 12345, 5);
    const { size } = await streamToR2(env.MEDIA, "t/unknown-big", chunked(data, 256 * 1024), {
      length: null,
      maxBytes: 20 * MiB,
      partSize: 5 * MiB,
    });
    expect(size).toBe(data.byteLength);
    const object = await env.MEDIA.get("t/unknown-big");
    expect(object!.size).toBe(data.byteLength);
    expect(await sha256(await object!.arrayBuffer())).toBe(await sha256(data));
  });

  it("stores a small body of unknown length in one put", async () => {
    const data = bytes(3000, 9);
    await streamToR2(env.MEDIA, "t/unknown-small", chunked(data, 100), { length: null, maxBytes: MiB });
    expect(new Uint8Array(await (await env.MEDIA.get("t/unknown-small"))!.arrayBuffer())).toEqual(data);
  });

  it("stops with 413 past maxBytes, declared or counted, and leaves nothing behind", async () => {
    await expect(
      streamToR2(env.MEDIA, "t/declared", chunked(bytes(10), 10), { length: 2048, maxBytes: 1024 }),
    ).rejects.toMatchObject({ status: 413 });
    await expect(
      streamToR2(env.MEDIA, "t/counted", chunked(bytes(6 * MiB), 64 * 1024), {
        length: null,
        maxBytes: 5 * MiB + 1,
        partSize: 5 * MiB,
      }),
    ).rejects.toMatchObject({ status: 413 });
    expect(await env.MEDIA.head("t/declared")).toBeNull();
    expect(await env.MEDIA.head("t/counted")).toBeNull();
  });
});
