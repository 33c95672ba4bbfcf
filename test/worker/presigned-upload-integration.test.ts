import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { readTask } from "../../platform/task-store.ts";
import { signedPutUrl } from "../../worker/ingest/upload-signature.ts";
import type { PresignResponse } from "../../worker/schemas/uploads.ts";
import { call, createKey, UPLOAD_SIGNING_SECRET } from "./helpers.ts";
import { accepted, bytes, callMinted, errorOf, postJson, sha256 } from "./ingest-helpers.ts";

async function presign(key: string, body: Record<string, unknown>): Promise<PresignResponse> {
  const response = await postJson("/uploads/presign", key, body);
  expect(response.status).toBe(200);
  return (await response.json()) as PresignResponse;
}

function put(uploadUrl: string, data: Uint8Array, headers: Record<string, string>): Promise<Response> {
  return callMinted(uploadUrl, { method: "PUT", headers, body: data });
}

/** A PUT as a browser or curl sends it: Content-Type and Content-Length. */
function putFile(uploadUrl: string, data: Uint8Array, contentType = "audio/mpeg"): Promise<Response> {
  return put(uploadUrl, data, { "content-type": contentType, "content-length": String(data.byteLength) });
}

describe("presign -> PUT -> POST /transcribe/object", () => {
  it("runs the whole flow and queues a task for the stored object", async () => {
    const { id, key } = await createKey();
    const presigned = await presign(key, { filename: "Bài giảng 1.MP3", content_type: "audio/mpeg" });
    expect(presigned.object_key).toMatch(/^uploads\/[0-9a-f-]{36}\/bai-giang-1\.mp3$/);
    expect(presigned.expires_in).toBe(3600);
    expect(presigned.upload_url).toMatch(
      new RegExp(
        `^http://voxedge\\.test/uploads/put/${presigned.object_key}\\?expires=\\d+&ct=audio%2Fmpeg&`,
      ),
    );

    const data = bytes(70_000);
    const stored = await putFile(presigned.upload_url, data);
    expect(stored.status).toBe(200);
    expect(await stored.json()).toEqual({ object_key: presigned.object_key, size: data.byteLength });
    const object = await env.MEDIA.get(presigned.object_key);
    expect(await sha256(await object!.arrayBuffer())).toBe(await sha256(data));
    expect(object!.httpMetadata?.contentType).toBe("audio/mpeg");
    expect(object!.customMetadata).toEqual({ owner_key_id: id });

    const task = await accepted(
      await postJson("/transcribe/object", key, {
        object_key: presigned.object_key,
        language: "ja",
        context: "c",
      }),
    );
    expect(await readTask(env, task.task_id)).toMatchObject({
      owner_key_id: id,
      status: "queued",
      source: { type: "object", object_key: presigned.object_key },
      params: { model_id: "whisper-base", language: "ja", context: "c", object_key: presigned.object_key },
    });
  });

  it("accepts a body of unknown length (chunked) and defaults the content type", async () => {
    const { key } = await createKey();
    const presigned = await presign(key, { filename: "x.wav" });
    const data = bytes(9 * 1024 * 1024 + 7, 4);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < data.byteLength; offset += 1 << 20) {
          controller.enqueue(data.slice(offset, offset + (1 << 20)));
        }
        controller.close();
      },
    });
    const response = await callMinted(presigned.upload_url, {
      method: "PUT",
      headers: { "content-type": "application/octet-stream" },
      body: stream,
    });
    expect(response.status).toBe(200);
    const object = await env.MEDIA.get(presigned.object_key);
    expect(object!.size).toBe(data.byteLength);
    expect(await sha256(await object!.arrayBuffer())).toBe(await sha256(data));
  });

  it("refuses a wrong Content-Type, a forged or altered signature and an expired URL with 403", async () => {
    const { id, key } = await createKey();
    const presigned = await presign(key, { filename: "a.mp3", content_type: "audio/mpeg" });
    const data = bytes(10);
    const wrongType = await errorOf(await putFile(presigned.upload_url, data, "audio/wav"), 403);
    expect(wrongType.detail).toMatch(/Content-Type must be "audio\/mpeg"/);
    expect((await errorOf(await put(presigned.upload_url, data, {}), 403)).code).toBe("forbidden");

    const url = new URL(presigned.upload_url);
    const sig = url.searchParams.get("sig")!;
    const tampered = [
      ["sig", `${sig[0] === "A" ? "B" : "A"}${sig.slice(1)}`],
      ["ct", "audio/wav"],
      ["owner", "key_someone_else"],
      ["expires", String(Number(url.searchParams.get("expires")) + 3600)],
    ];
    for (const [name, value] of tampered) {
      const altered = new URL(url);
      altered.searchParams.set(name!, value!);
      const type = name === "ct" ? "audio/wav" : "audio/mpeg";
      const body = await errorOf(await putFile(altered.toString(), data, type), 403);
      expect(body.detail, name).toMatch(/signature does not match/);
    }
    const unsigned = new URL(url);
    unsigned.searchParams.delete("sig");
    expect((await errorOf(await putFile(unsigned.toString(), data), 403)).detail).toMatch(/signature/);

    const expired = await signedPutUrl("http://voxedge.test", UPLOAD_SIGNING_SECRET, {
      objectKey: presigned.object_key,
      contentType: "audio/mpeg",
      ownerKeyId: id,
      expires: Math.floor(Date.now() / 1000) - 1,
    });
    expect((await errorOf(await putFile(expired, data), 403)).detail).toMatch(/expired/);
    expect(await env.MEDIA.head(presigned.object_key)).toBeNull();
  });

  it("answers 413 to a declared Content-Length over 2 GB, without reading the body", async () => {
    const { key } = await createKey();
    const presigned = await presign(key, { filename: "big.mp3", content_type: "audio/mpeg" });
    const neverRead = new ReadableStream<Uint8Array>({
      pull() {
        throw new Error("the body must not be read");
      },
    });
    const response = await callMinted(presigned.upload_url, {
      method: "PUT",
      headers: { "content-type": "audio/mpeg", "content-length": String(2 * 1024 ** 3 + 1) },
      body: neverRead,
    });
    expect((await errorOf(response, 413)).code).toBe("payload_too_large");
  });

  it("answers CORS preflights for the upload URL so a browser can PUT directly", async () => {
    const { key } = await createKey();
    const presigned = await presign(key, { filename: "a.mp3", content_type: "audio/mpeg" });
    const response = await callMinted(presigned.upload_url, {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "PUT",
        "access-control-request-headers": "content-type",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")).toContain("PUT");
    expect(response.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("content-type");
  });

  it("answers 404 for PUTs outside the upload key shape", async () => {
    for (const path of ["/uploads/put/secrets/a", "/uploads/put/uploads%2Fx%2Fy", "/uploads/put/"]) {
      const response = await call(`${path}?expires=1&ct=a%2Fb&owner=k&sig=x`, { method: "PUT", body: "x" });
      expect(response.status, path).toBe(404);
    }
  });
});

describe("POST /transcribe/object refusals", () => {
  it("answers 404 for another key's object, the same as for an unknown one", async () => {
    const owner = await createKey("owner");
    const other = await createKey("other");
    const presigned = await presign(owner.key, { filename: "a.mp3", content_type: "audio/mpeg" });
    expect((await putFile(presigned.upload_url, bytes(100))).status).toBe(200);
    const theirs = await errorOf(
      await postJson("/transcribe/object", other.key, { object_key: presigned.object_key }),
      404,
    );
    const unknown = await errorOf(
      await postJson("/transcribe/object", other.key, {
        object_key: "uploads/00000000-0000-4000-8000-000000000000/a.mp3",
      }),
      404,
    );
    expect(theirs).toEqual(unknown);
    expect(theirs.code).toBe("not_found");
  });

  it("answers 400 while the object is not uploaded yet, or empty", async () => {
    const { key } = await createKey();
    const presigned = await presign(key, { filename: "a.mp3", content_type: "audio/mpeg" });
    const early = await errorOf(
      await postJson("/transcribe/object", key, { object_key: presigned.object_key }),
      400,
    );
    expect(early.detail).toMatch(/not uploaded yet/);
    expect((await putFile(presigned.upload_url, new Uint8Array(0))).status).toBe(200);
    const empty = await errorOf(
      await postJson("/transcribe/object", key, { object_key: presigned.object_key }),
      400,
    );
    expect(empty.detail).toMatch(/empty/);
  });

  it("applies the language rules and rejects unknown fields", async () => {
    const { key } = await createKey();
    const presigned = await presign(key, { filename: "a.mp3", content_type: "audio/mpeg" });
    await putFile(presigned.upload_url, bytes(100));
    const body = { object_key: presigned.object_key };
    expect(
      (await errorOf(await postJson("/transcribe/object", key, { ...body, language: "xx" }), 400)).detail,
    ).toMatch(/unsupported language/);
    const extra = await errorOf(await postJson("/transcribe/object", key, { ...body, priority: 1 }), 422);
    expect(extra.detail).toContainEqual({
      loc: ["body", "priority"],
      msg: "Extra inputs are not permitted",
      type: "extra_forbidden",
    });
  });
});

describe("content types with parameters (what a browser's MediaRecorder produces)", () => {
  it("presigns audio/webm;codecs=opus and takes the PUT only with exactly that Content-Type", async () => {
    const { key } = await createKey();
    for (const type of ["audio/webm;codecs=opus", 'audio/ogg; codecs="opus"', "text/plain; charset=utf-8"]) {
      const presigned = await presign(key, { filename: "take.webm", content_type: type });
      const data = bytes(500, 3);
      for (const other of ["audio/webm", "audio/webm; codecs=opus", "AUDIO/WEBM;codecs=opus", "audio/ogg"]) {
        if (other !== type) await errorOf(await putFile(presigned.upload_url, data, other), 403);
      }
      expect((await putFile(presigned.upload_url, data, type)).status, type).toBe(200);
      const object = await env.MEDIA.head(presigned.object_key);
      expect(object?.httpMetadata?.contentType).toBe(type);
    }
  });
});

describe("POST /uploads/presign validation", () => {
  it("requires filename, rejects unknown fields and malformed content types", async () => {
    const { key } = await createKey();
    const missing = await errorOf(await postJson("/uploads/presign", key, {}), 422);
    expect(missing.detail).toContainEqual({
      loc: ["body", "filename"],
      msg: "Field required",
      type: "missing",
    });
    const extra = await errorOf(await postJson("/uploads/presign", key, { filename: "a", size: 1 }), 422);
    expect(extra.detail).toContainEqual({
      loc: ["body", "size"],
      msg: "Extra inputs are not permitted",
      type: "extra_forbidden",
    });
    for (const content_type of [
      "audio",
      "a/b\r\nX: y",
      "audio/webm;codecs=opus\nX: y",
      "audio/webm;codecs",
      " audio/webm",
      "audio/webm; ",
      `audio/webm;x=${"a".repeat(300)}`,
      "",
    ]) {
      const bad = await errorOf(
        await postJson("/uploads/presign", key, { filename: "a", content_type }),
        422,
      );
      expect((bad.detail as { loc: unknown[] }[])[0]?.loc, content_type).toEqual(["body", "content_type"]);
    }
  });
});
