/**
 * Forged, expired, cross-used and replayed signed URLs, through the real routes.
 *
 * The policy (docs/api.md "Presigned uploads"): a signed upload URL stores its object once. A replay
 * after a successful PUT, or while one is running, is 409 and leaves the stored bytes alone, so the
 * audio a task was made from cannot be swapped under it; a PUT that failed leaves the URL usable for
 * a retry. Media links are read-only and may be used any number of times until they expire.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { signedPutUrl } from "../../worker/ingest/upload-signature.ts";
import { signedMediaUrl } from "../../worker/media/media-signature.ts";
import type { PresignResponse } from "../../worker/schemas/uploads.ts";
import { createKey, UPLOAD_SIGNING_SECRET } from "./helpers.ts";
import {
  accepted,
  bytes,
  callMinted,
  errorOf,
  getRequiringSignature,
  postJson,
  sha256,
} from "./ingest-helpers.ts";

const SECRET = UPLOAD_SIGNING_SECRET;

async function presign(key: string): Promise<PresignResponse> {
  return (await (
    await postJson("/uploads/presign", key, { filename: "a.mp3", content_type: "audio/mpeg" })
  ).json()) as PresignResponse;
}

const putFile = (url: string, data: Uint8Array, length = data.byteLength) =>
  callMinted(url, {
    method: "PUT",
    headers: { "content-type": "audio/mpeg", "content-length": String(length) },
    body: data,
  });

async function storedHash(objectKey: string): Promise<string | null> {
  const object = await env.MEDIA.get(objectKey);
  return object ? sha256(await object.arrayBuffer()) : null;
}

describe("signed upload URLs: one object per URL", () => {
  it("refuses a replayed PUT with 409 and keeps the first bytes, before and after the task is made", async () => {
    const { key } = await createKey("replay");
    const presigned = await presign(key);
    const first = bytes(3000, 1);
    expect((await putFile(presigned.upload_url, first)).status).toBe(200);

    const replay = await errorOf(await putFile(presigned.upload_url, bytes(5000, 2)), 409);
    expect(replay).toEqual({ detail: expect.stringMatching(/already been used/), code: "conflict" });
    expect(await storedHash(presigned.object_key)).toBe(await sha256(first));

    await accepted(await postJson("/transcribe/object", key, { object_key: presigned.object_key }));
    await errorOf(await putFile(presigned.upload_url, bytes(10, 3)), 409);
    expect(await storedHash(presigned.object_key)).toBe(await sha256(first));
  });

  it("lets a failed PUT be retried with the same URL", async () => {
    const { key } = await createKey("retry");
    const presigned = await presign(key);
    const data = bytes(2000, 4);
    // declared longer than sent: the body ends early, nothing is stored
    const cut = await putFile(presigned.upload_url, data.subarray(0, 100), data.byteLength);
    expect((await errorOf(cut, 400)).detail).toMatch(/Content-Length/);
    expect(await env.MEDIA.head(presigned.object_key)).toBeNull();
    // a wrong Content-Type is refused before the URL is used up
    await errorOf(
      await callMinted(presigned.upload_url, {
        method: "PUT",
        headers: { "content-type": "audio/wav" },
        body: data,
      }),
      403,
    );
    expect((await putFile(presigned.upload_url, data)).status).toBe(200);
    expect(await storedHash(presigned.object_key)).toBe(await sha256(data));
  });

  it("lets only one of two PUTs racing with the same URL store its bytes", async () => {
    const { key } = await createKey("race");
    const presigned = await presign(key);
    const slow = bytes(4096, 5);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slowBody = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(slow.subarray(0, 2048));
        await gate;
        controller.enqueue(slow.subarray(2048));
        controller.close();
      },
    });
    const first = callMinted(presigned.upload_url, {
      method: "PUT",
      headers: { "content-type": "audio/mpeg", "content-length": "4096" },
      body: slowBody,
    });
    await new Promise((resolve) => setTimeout(resolve, 100)); // the first PUT holds the URL now
    const second = await putFile(presigned.upload_url, bytes(4096, 6));
    release();
    expect(second.status).toBe(409);
    expect((await first).status).toBe(200);
    expect(await storedHash(presigned.object_key)).toBe(await sha256(slow));
  });

  it("refuses an expired URL, one signed for another owner, and one of another deployment's secret", async () => {
    const { id, key } = await createKey("forged");
    const presigned = await presign(key);
    const grant = { objectKey: presigned.object_key, contentType: "audio/mpeg", ownerKeyId: id };
    const now = Math.floor(Date.now() / 1000);
    const expired = await signedPutUrl("http://voxedge.test", SECRET, { ...grant, expires: now - 1 });
    expect((await errorOf(await putFile(expired, bytes(10)), 403)).detail).toMatch(/expired/);
    const otherOwner = await signedPutUrl("http://voxedge.test", SECRET, {
      ...grant,
      ownerKeyId: "key_someone",
      expires: now + 60,
    });
    // validly signed, but the upload is not that owner's: it cannot claim it
    await errorOf(await putFile(otherOwner, bytes(10)), 409);
    const otherSecret = await signedPutUrl("http://voxedge.test", "another-secret", {
      ...grant,
      expires: now + 60,
    });
    expect((await errorOf(await putFile(otherSecret, bytes(10)), 403)).detail).toMatch(/signature/);
    expect(await env.MEDIA.head(presigned.object_key)).toBeNull();
  });
});

describe("signed media links, with MEDIA_REQUIRE_SIGNATURE=true", () => {
  it("serves a link any number of times until it expires, then refuses it; never for another key or kind", async () => {
    const { key } = await createKey("media");
    const a = await presign(key);
    const b = await presign(key);
    expect((await putFile(a.upload_url, bytes(100, 7))).status).toBe(200);
    expect((await putFile(b.upload_url, bytes(100, 8))).status).toBe(200);
    const now = Math.floor(Date.now() / 1000);
    const link = await signedMediaUrl("http://voxedge.test", SECRET, a.object_key, now + 60);
    for (let i = 0; i < 3; i++) expect((await getRequiringSignature(link)).status).toBe(200);

    const expired = await signedMediaUrl("http://voxedge.test", SECRET, a.object_key, now - 1);
    expect((await errorOf(await getRequiringSignature(expired), 403)).detail).toMatch(/expired/);
    // a's signature on b's path
    const swapped = new URL(link);
    swapped.pathname = `/media/${b.object_key}`;
    expect((await errorOf(await getRequiringSignature(swapped.toString()), 403)).detail).toMatch(/signature/);
    // an upload URL's signature is no media signature (each kind signs its own version tag)
    const put = new URL(a.upload_url);
    const crossKind = new URL(link);
    crossKind.searchParams.set("sig", put.searchParams.get("sig") ?? "");
    crossKind.searchParams.set("expires", put.searchParams.get("expires") ?? "");
    expect((await errorOf(await getRequiringSignature(crossKind.toString()), 403)).detail).toMatch(
      /signature/,
    );
  });

  it("checks media signatures in constant time", async () => {
    const { key } = await createKey("media-timing");
    const a = await presign(key);
    await putFile(a.upload_url, bytes(10, 9));
    const link = new URL(
      await signedMediaUrl("http://voxedge.test", SECRET, a.object_key, Math.floor(Date.now() / 1000) + 60),
    );
    link.searchParams.set("sig", `${link.searchParams.get("sig")?.slice(0, -2)}AA`);
    const compare = vi.spyOn(crypto.subtle, "timingSafeEqual");
    try {
      expect((await getRequiringSignature(link.toString())).status).toBe(403);
      expect(compare).toHaveBeenCalledTimes(1);
    } finally {
      compare.mockRestore();
    }
  });
});
