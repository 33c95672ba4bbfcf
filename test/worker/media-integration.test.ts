import { env, exports } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { newObjectKey } from "../../worker/ingest/object-keys.ts";
import { recordUpload } from "../../worker/ingest/upload-registry.ts";
import type { HistoryPage } from "../../worker/schemas/history.ts";
import type { TaskStatusResponse } from "../../worker/schemas/tasks.ts";
import { bearer, call, createKey, resetDispatcher } from "./helpers.ts";
import { accepted, bytes, callMinted, postJson } from "./ingest-helpers.ts";
import { sampleResult, TestNode } from "./node-client.ts";

const DATA = bytes(100, 21);
const KEY = newObjectKey("clip.mp3");

beforeAll(async () => {
  await env.MEDIA.put(KEY, DATA, { httpMetadata: { contentType: "audio/mpeg" } });
});

const media = (path: string, headers: Record<string, string> = {}) => call(path, { headers });

describe("GET /media/{object_key}", () => {
  it("streams the whole object with its type and length, no API key needed", async () => {
    const response = await media(`/media/${KEY}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("audio/mpeg");
    expect(response.headers.get("content-length")).toBe("100");
    expect(response.headers.get("accept-ranges")).toBe("bytes");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(DATA);
  });

  it("honours Range: first bytes, suffix, open-ended, and 416 past the end", async () => {
    for (const [range, first, last] of [
      ["bytes=0-9", 0, 9],
      ["bytes=-5", 95, 99],
      ["bytes=90-", 90, 99],
      ["bytes=50-500", 50, 99],
    ] as const) {
      const response = await media(`/media/${KEY}`, { range });
      expect(response.status, range).toBe(206);
      expect(response.headers.get("content-range")).toBe(`bytes ${first}-${last}/100`);
      expect(response.headers.get("content-length")).toBe(String(last - first + 1));
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(DATA.slice(first, last + 1));
    }
    const unsatisfiable = await media(`/media/${KEY}`, { range: "bytes=100-" });
    expect(unsatisfiable.status).toBe(416);
    expect(unsatisfiable.headers.get("content-range")).toBe("bytes */100");
  });

  it("never serves an upload as a page", async () => {
    const key = newObjectKey("page.html");
    await env.MEDIA.put(key, "<script>alert(1)</script>", { httpMetadata: { contentType: "text/html" } });
    const response = await media(`/media/${key}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/octet-stream");
  });

  it("answers 404 to unknown keys, keys outside uploads/ and path tricks", async () => {
    await env.MEDIA.put("secrets/config.json", "{}");
    const [, uuid = "", name = ""] = KEY.split("/");
    for (const path of [
      `/media/uploads/00000000-0000-4000-8000-000000000000/clip.mp3`,
      "/media/secrets/config.json",
      `/media/uploads/${uuid}/../../secrets/config.json`,
      `/media/uploads/${uuid}/%2e%2e/%2e%2e/secrets/config.json`,
      `/media/uploads%2F${uuid}%2F${name}`,
      `/media/uploads/${uuid}%2F${name}`,
      `/media/uploads/${uuid}/${name}/extra`,
      `/media/uploads/${uuid}/${name}%00`,
      `/media/uploads/${uuid}/${name.replace("clip", "CLIP")}`,
      `/media/uploads/${uuid}`,
      "/media/",
      "/media/..%2fsecrets%2fconfig.json",
    ]) {
      const response = await media(path);
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe("not_found");
    }
  });
});

describe("audio_url", () => {
  beforeEach(resetDispatcher);

  it("is minted on every read of a done task whose media we store, in poll and history", async () => {
    const { id, key } = await createKey();
    await recordUpload(env, { objectKey: KEY, ownerKeyId: id, contentType: "audio/mpeg" });
    const task = await accepted(
      await postJson("/transcribe/object", key, { object_key: KEY, language: "vi" }),
    );
    const node = new TestNode();
    const [lease] = await node.lease(1, 10_000);
    expect(lease?.task_id).toBe(task.task_id);
    expect((await node.complete(lease!.lease_id, sampleResult("xong"))).status).toBe(204);

    const poll = await call(`/transcribe/${task.task_id}`, { headers: bearer(key) });
    const status = (await poll.json()) as TaskStatusResponse;
    expect(status).toMatchObject({
      status: "done",
      result: { text: "xong", audio_url: `http://voxedge.test/media/${KEY}` },
    });
    const audio = await callMinted(status.result!.audio_url!);
    expect(new Uint8Array(await audio.arrayBuffer())).toEqual(DATA);

    const page = (await (await call("/history", { headers: bearer(key) })).json()) as HistoryPage;
    expect(page.jobs[0]?.result?.audio_url).toBe(`http://voxedge.test/media/${KEY}`);
    // Minted per request: it follows the origin the client called.
    const viaOtherHost = await exports.default.fetch(
      new Request(`https://api.example.com/transcribe/${task.task_id}`, { headers: bearer(key) }),
    );
    expect(((await viaOtherHost.json()) as TaskStatusResponse).result?.audio_url).toBe(
      `https://api.example.com/media/${KEY}`,
    );
  });
});
