import { env, exports } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { newObjectKey, outputKey } from "../../worker/ingest/object-keys.ts";
import { recordUpload } from "../../worker/ingest/upload-registry.ts";
import { signedMediaUrl } from "../../worker/media/media-signature.ts";
import type { HistoryPage } from "../../worker/schemas/history.ts";
import type { TaskStatusResponse } from "../../worker/schemas/tasks.ts";
import { bearer, call, createKey, resetDispatcher, UPLOAD_SIGNING_SECRET } from "./helpers.ts";
import { accepted, bytes, callMinted, getRequiringSignature as get, postJson } from "./ingest-helpers.ts";
import { sampleResult, TestNode } from "./node-client.ts";

const DATA = bytes(100, 21);
const KEY = newObjectKey("clip.mp3");

beforeAll(async () => {
  await env.MEDIA.put(KEY, DATA, { httpMetadata: { contentType: "audio/mpeg" } });
});

const SECRET = UPLOAD_SIGNING_SECRET;
const inOneHour = () => Math.floor(Date.now() / 1000) + 3600;

/** GET a key through a freshly signed link (the path part only, for `call`). */
async function media(key: string, headers: Record<string, string> = {}) {
  const url = new URL(await signedMediaUrl("http://voxedge.test", SECRET, key, inOneHour()));
  return call(`${url.pathname}${url.search}`, { headers });
}

describe("GET /media/{object_key}", () => {
  it("streams the whole object with its type and length through a signed link, no API key needed", async () => {
    const response = await media(KEY);
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
      const response = await media(KEY, { range });
      expect(response.status, range).toBe(206);
      expect(response.headers.get("content-range")).toBe(`bytes ${first}-${last}/100`);
      expect(response.headers.get("content-length")).toBe(String(last - first + 1));
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(DATA.slice(first, last + 1));
    }
    const unsatisfiable = await media(KEY, { range: "bytes=100-" });
    expect(unsatisfiable.status).toBe(416);
    expect(unsatisfiable.headers.get("content-range")).toBe("bytes */100");
  });

  it("never serves an object as a page; serves task outputs with their document types", async () => {
    const key = newObjectKey("page.html");
    await env.MEDIA.put(key, "<script>alert(1)</script>", { httpMetadata: { contentType: "text/html" } });
    const response = await media(key);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/octet-stream");
    const deck = outputKey(crypto.randomUUID(), "deck.pdf");
    await env.MEDIA.put(deck, "%PDF-1.7", { httpMetadata: { contentType: "application/pdf" } });
    expect((await media(deck)).headers.get("content-type")).toBe("application/pdf");
  });

  it("mints output keys with a random segment after the task id, and still serves outputs stored before it", async () => {
    const task = crypto.randomUUID();
    const [first, second] = [outputKey(task, "Short.MP4"), outputKey(task, "Short.MP4")];
    expect(first).toMatch(new RegExp(`^outputs/${task}/[0-9a-f-]{36}/short\\.mp4$`));
    expect(second).not.toBe(first);
    const legacy = `outputs/${crypto.randomUUID()}/deck.pdf`; // the shape minted before the random segment
    await env.MEDIA.put(legacy, "%PDF-1.7", { httpMetadata: { contentType: "application/pdf" } });
    expect((await call(`/media/${legacy}`)).status).toBe(200);
  });

  it("answers 404 to unknown keys, keys outside uploads/ and outputs/, and path tricks", async () => {
    await env.MEDIA.put("secrets/config.json", "{}");
    const [, uuid = "", name = ""] = KEY.split("/");
    const missing = await media("uploads/00000000-0000-4000-8000-000000000000/clip.mp3");
    expect(missing.status).toBe(404);
    for (const path of [
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
      const response = await call(`${path}?expires=${inOneHour()}&sig=AAAA`);
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe("not_found");
    }
  });
});

describe("GET /media/{object_key} without a signature (the spec's default: the UUID key is the capability)", () => {
  it("serves 200, 206 and 416 to a bare URL with no key and no signature", async () => {
    const whole = await call(`/media/${KEY}`);
    expect(whole.status).toBe(200);
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(DATA);
    const part = await call(`/media/${KEY}`, { headers: { range: "bytes=10-19" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe("bytes 10-19/100");
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(DATA.slice(10, 20));
    const past = await call(`/media/${KEY}`, { headers: { range: "bytes=100-" } });
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe("bytes */100");
  });

  it("still serves a signed link, and ignores a stale or altered signature (the key alone authorises)", async () => {
    expect((await media(KEY)).status).toBe(200);
    const expired = new URL(
      await signedMediaUrl("http://voxedge.test", SECRET, KEY, Math.floor(Date.now() / 1000) - 1),
    );
    expect((await call(`${expired.pathname}${expired.search}`)).status).toBe(200);
  });

  it("names the file: audio and video inline, PDF and PPTX as attachments unless asked inline", async () => {
    expect((await call(`/media/${KEY}`)).headers.get("content-disposition")).toBe(
      'inline; filename="clip.mp3"',
    );
    const task = crypto.randomUUID();
    const deck = outputKey(task, "deck.pdf");
    await env.MEDIA.put(deck, "%PDF-1.7", { httpMetadata: { contentType: "application/pdf" } });
    const pptx = outputKey(task, "deck.pptx");
    await env.MEDIA.put(pptx, "PK", {
      httpMetadata: {
        contentType: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
      },
    });
    const page = newObjectKey("page.html");
    await env.MEDIA.put(page, "<p>hi</p>", { httpMetadata: { contentType: "text/html" } });
    const disposition = async (path: string) => (await call(path)).headers.get("content-disposition");
    expect(await disposition(`/media/${deck}`)).toBe('attachment; filename="deck.pdf"');
    expect(await disposition(`/media/${pptx}`)).toBe('attachment; filename="deck.pptx"');
    expect(await disposition(`/media/${page}`)).toBe('attachment; filename="page.html"');
    expect(await disposition(`/media/${deck}?disposition=inline`)).toBe('inline; filename="deck.pdf"');
    // only documents a browser can show may be asked inline; anything else stays a download
    expect(await disposition(`/media/${page}?disposition=inline`)).toBe('attachment; filename="page.html"');
    const bad = await call(`/media/${deck}?disposition=frame`);
    expect(bad.status).toBe(422);
  });
});

describe("GET /media/{object_key} with MEDIA_REQUIRE_SIGNATURE=true", () => {
  it("serves a signed link with Range", async () => {
    const signed = new URL(await signedMediaUrl("http://voxedge.test", SECRET, KEY, inOneHour()));
    expect((await get(`${signed.pathname}${signed.search}`)).status).toBe(200);
    const part = await get(`${signed.pathname}${signed.search}`, { range: "bytes=0-9" });
    expect(part.status).toBe(206);
  });

  it("refuses an unsigned, forged, re-targeted or expired link with 403", async () => {
    const signed = new URL(await signedMediaUrl("http://voxedge.test", SECRET, KEY, inOneHour()));
    const other = newObjectKey("other.mp3");
    await env.MEDIA.put(other, "x");
    const expired = new URL(
      await signedMediaUrl("http://voxedge.test", SECRET, KEY, Math.floor(Date.now() / 1000) - 1),
    );
    const forged = new URL(signed);
    forged.searchParams.set("sig", `${signed.searchParams.get("sig")!.slice(0, -2)}AA`);
    const later = new URL(signed);
    later.searchParams.set("expires", String(inOneHour() + 3600));
    const wrongSecret = new URL(
      await signedMediaUrl("http://voxedge.test", "not-the-secret", KEY, inOneHour()),
    );
    for (const [name, path] of [
      ["unsigned", `/media/${KEY}`],
      ["forged", `${forged.pathname}${forged.search}`],
      ["expiry moved", `${later.pathname}${later.search}`],
      ["another key's signature", `/media/${other}${signed.search}`],
      ["another secret", `${wrongSecret.pathname}${wrongSecret.search}`],
      ["expired", `${expired.pathname}${expired.search}`],
    ] as const) {
      const response = await get(path);
      expect(response.status, name).toBe(403);
      expect(((await response.json()) as { code: string }).code, name).toBe("forbidden");
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
    expect(status).toMatchObject({ status: "done", result: { text: "xong" } });
    expect(status.result?.audio_url).toMatch(
      new RegExp(`^http://voxedge.test/media/${KEY}\\?expires=\\d+&sig=`),
    );
    const audio = await callMinted(status.result!.audio_url!);
    expect(new Uint8Array(await audio.arrayBuffer())).toEqual(DATA);

    const page = (await (await call("/history", { headers: bearer(key) })).json()) as HistoryPage;
    expect(page.jobs[0]?.result?.audio_url).toMatch(new RegExp(`^http://voxedge.test/media/${KEY}\\?`));
    // Minted per request: it follows the origin the client called.
    const viaOtherHost = await exports.default.fetch(
      new Request(`https://api.example.com/transcribe/${task.task_id}`, { headers: bearer(key) }),
    );
    expect(((await viaOtherHost.json()) as TaskStatusResponse).result?.audio_url).toMatch(
      new RegExp(`^https://api.example.com/media/${KEY}\\?`),
    );
  });
});
