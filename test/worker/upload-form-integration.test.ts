import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { bearer, call, createKey, readTranscription } from "./helpers.ts";
import { accepted, bytes, errorOf, sha256 } from "./ingest-helpers.ts";

type Field = [name: string, value: string | File];

function upload(key: string, fields: Field[]): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  return call("/transcribe/upload", { method: "POST", headers: bearer(key), body: form });
}

const audio = (data: Uint8Array, name = "Talk 1.mp3") => new File([data], name, { type: "audio/mpeg" });

/** Keys under uploads/ (R2 state is shared by the tests of a file, so tests compare before and after). */
async function storedUploads(): Promise<string[]> {
  return (await env.MEDIA.list({ prefix: "uploads/" })).objects.map((object) => object.key);
}

describe("POST /transcribe/upload", () => {
  it("streams the file into R2 with fields before it, and queues the task", async () => {
    const { id, key } = await createKey();
    const data = bytes(12 * 1024 * 1024 + 3, 11); // more than one 8 MiB part: the multipart path
    const task = await accepted(
      await upload(key, [
        ["language", "Vietnamese"],
        ["context", "tên riêng: Voxedge"],
        ["model", "ignored"],
        ["file", audio(data)],
      ]),
    );
    const record = await readTranscription(task.task_id);
    const objectKey = record?.params.object_key as string;
    expect(objectKey).toMatch(/^uploads\/[0-9a-f-]{36}\/talk-1\.mp3$/);
    expect(record).toMatchObject({
      owner_key_id: id,
      source: { type: "object", object_key: objectKey },
      params: { model_id: "whisper-base", language: "vi", context: "tên riêng: Voxedge" },
    });
    const object = await env.MEDIA.get(objectKey);
    expect(object!.size).toBe(data.byteLength);
    expect(await sha256(await object!.arrayBuffer())).toBe(await sha256(data));
    expect(object!.httpMetadata?.contentType).toBe("audio/mpeg");
    expect(object!.customMetadata).toEqual({ owner_key_id: id });
  });

  it("reads fields that come after the file", async () => {
    const { key } = await createKey();
    const data = bytes(5000, 2);
    const task = await accepted(
      await upload(key, [
        ["file", audio(data, "a.ogg")],
        ["language", "ko"],
        ["context", "x"],
      ]),
    );
    const record = await readTranscription(task.task_id);
    expect(record?.params).toMatchObject({ language: "ko", context: "x" });
    const object = await env.MEDIA.get(record?.params.object_key as string);
    expect(new Uint8Array(await object!.arrayBuffer())).toEqual(data);
  });

  it("answers 422 for a missing file, an empty file, two files or an over-long field, storing nothing", async () => {
    const { key } = await createKey();
    const before = await storedUploads();
    const missing = await errorOf(await upload(key, [["language", "vi"]]), 422);
    expect(missing.detail).toEqual([{ loc: ["body", "file"], msg: "Field required", type: "missing" }]);
    const empty = await errorOf(await upload(key, [["file", audio(new Uint8Array(0))]]), 422);
    expect(empty.detail).toEqual([{ loc: ["body", "file"], msg: "the file is empty", type: "value_error" }]);
    const twice = await errorOf(
      await upload(key, [
        ["file", audio(bytes(10))],
        ["file", audio(bytes(10))],
      ]),
      422,
    );
    expect((twice.detail as { loc: unknown[] }[])[0]?.loc).toEqual(["body", "file"]);
    const long = await errorOf(
      await upload(key, [
        ["file", audio(bytes(10))],
        ["context", "x".repeat(2001)],
      ]),
      422,
    );
    expect((long.detail as { loc: unknown[] }[])[0]?.loc).toEqual(["body", "context"]);
    expect(await storedUploads()).toEqual(before);
  });

  it("answers 400 for an unsupported language sent after the file, and deletes the file", async () => {
    const { key } = await createKey();
    const before = await storedUploads();
    const body = await errorOf(
      await upload(key, [
        ["file", audio(bytes(100))],
        ["language", "Klingon"],
      ]),
      400,
    );
    expect(body.detail).toMatch(/unsupported language/);
    expect(await storedUploads()).toEqual(before);
  });

  it("answers 413 to a declared Content-Length over 2 GB before reading the body", async () => {
    const { key } = await createKey();
    const neverRead = new ReadableStream<Uint8Array>({
      pull() {
        throw new Error("the body must not be read");
      },
    });
    const response = await call("/transcribe/upload", {
      method: "POST",
      headers: {
        ...bearer(key),
        "content-type": "multipart/form-data; boundary=xyz",
        "content-length": String(2 * 1024 ** 3 + 1024 * 1024),
      },
      body: neverRead,
    });
    expect((await errorOf(response, 413)).code).toBe("payload_too_large");
  });

  it("answers 422 for a body that is not multipart/form-data", async () => {
    const { key } = await createKey();
    const response = await call("/transcribe/upload", {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/json" },
      body: "{}",
    });
    const body = await errorOf(response, 422);
    expect((body.detail as { loc: unknown[] }[])[0]?.loc).toEqual(["body"]);
  });
});
