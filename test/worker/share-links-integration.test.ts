/**
 * Spec rule 1 of POST /transcribe: an expired share link gives 400 at once. Share hosts answer a dead,
 * private or unscannable link with 200 and an HTML page (or redirect to one), and APIs with a JSON
 * error; the probe refuses those at enqueue instead of queueing a task that fails later, and still
 * takes media however it is served. Real Worker, D1 and Queue; the hosts are the fixture server's
 * imitations (test/helpers/share-link-hosts.ts).
 */
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../../platform/db.ts";
import { jobs } from "../../platform/schema.ts";
import { readTask } from "../../platform/task-store.ts";
import { ErrorBody } from "../../worker/errors.ts";
import { bearer, call, createKey } from "./helpers.ts";
import { accepted, fixtureUrl, postJson } from "./ingest-helpers.ts";

interface Logged {
  method: string;
  path: string;
  range: string | null;
}

/** The requests the share hosts received for `path`. */
async function requestsTo(path: string): Promise<Logged[]> {
  const log = (await (await fetch(fixtureUrl("/share-log"))).json()) as Logged[];
  return log.filter((entry) => entry.path === path);
}

/** POSTs `path` on the fixture server as file_url with a fresh key; returns the answer and that key's id. */
async function enqueue(path: string): Promise<{ response: Response; ownerKeyId: string; key: string }> {
  const { id, key } = await createKey();
  const response = await postJson("/transcribe", key, { file_url: fixtureUrl(path), language: "en" });
  return { response, ownerKeyId: id, key };
}

/** Checks a refusal: 400, the error envelope and nothing else, no task in history or in D1. */
async function refusedWith(path: string, detail: RegExp): Promise<void> {
  const { response, ownerKeyId, key } = await enqueue(path);
  const body = await response.json();
  expect(response.status, `${path}: ${JSON.stringify(body)}`).toBe(400);
  expect(ErrorBody.strict().parse(body)).toEqual({
    code: "bad_request",
    detail: expect.stringMatching(detail),
  });
  const history = await call("/history", { headers: bearer(key) });
  expect(await history.json()).toMatchObject({ jobs: [], total: 0 });
  expect(await db(env).select().from(jobs).where(eq(jobs.owner_key_id, ownerKeyId)).all()).toEqual([]);
}

const HTML_PAGE =
  /^file_url is not usable: 127\.0\.0\.1:\d+ answered an HTML page \(.*expired share link\?\), not media$/;

describe("POST /transcribe with a share link that answers a page, not media", () => {
  it("refuses Google Drive's virus-scan warning and its sign-in redirect", async () => {
    await refusedWith("/share/drive/uc/large", HTML_PAGE);
    await refusedWith("/share/drive/uc/private", HTML_PAGE);
  });

  it("refuses Dropbox's expired-link page, answered directly or after a redirect", async () => {
    await refusedWith("/share/dropbox/s/expired/talk.wav", HTML_PAGE);
    await refusedWith("/share/dropbox/scl/expired/talk.wav", HTML_PAGE);
  });

  it("refuses OneDrive's redirect to its login page and its JSON error", async () => {
    await refusedWith("/share/onedrive/download", HTML_PAGE);
    await refusedWith(
      "/share/onedrive/json-error",
      /answered a JSON document \(an error from an API\?\), not media/,
    );
  });

  it("refuses a page or an error sent as application/octet-stream or untyped, by its first bytes", async () => {
    await refusedWith("/share/octet/html", HTML_PAGE);
    await refusedWith("/share/octet/json", /answered a JSON document/);
    await refusedWith("/share/octet/text", /answered a text document, not media/);
    // HEAD refused and Range ignored: the fallback GET's own first bytes are judged.
    await refusedWith("/share/octet/html-no-head", HTML_PAGE);
  });
});

describe("POST /transcribe with media from a share host", () => {
  it("accepts a WAV however it is served: audio/wav, octet-stream, untyped, without HEAD or Range", async () => {
    for (const path of [
      "/share/media/talk.wav",
      "/share/media/octet.wav",
      "/share/media/untyped.wav",
      "/share/media/no-head.wav",
      "/share/media/no-range.wav",
    ]) {
      const task = await accepted((await enqueue(path)).response);
      expect((await readTask(env, task.task_id))?.source, path).toEqual({
        type: "url",
        url: fixtureUrl(path),
      });
    }
  });

  it("follows Drive's redirect to drive.usercontent to a download sent as octet-stream", async () => {
    const task = await accepted((await enqueue("/share/drive/uc/shared")).response);
    expect((await readTask(env, task.task_id))?.status).toBe("queued");
  });

  it("takes a declared media type at its word: one HEAD, no sniffing", async () => {
    await accepted((await enqueue("/share/media/clip.mp4")).response);
    expect(await requestsTo("/share/media/clip.mp4")).toEqual([
      { method: "HEAD", path: "/share/media/clip.mp4", range: null },
    ]);
  });

  it("asks for the first 512 bytes only of a download it must sniff", async () => {
    await accepted((await enqueue("/share/media/octet.wav")).response);
    expect((await requestsTo("/share/media/octet.wav")).slice(-2)).toEqual([
      { method: "HEAD", path: "/share/media/octet.wav", range: null },
      { method: "GET", path: "/share/media/octet.wav", range: "bytes=0-511" },
    ]);
  });
});
