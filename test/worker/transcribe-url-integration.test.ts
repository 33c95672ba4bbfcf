import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { readTask } from "../../platform/task-store.ts";
import { createKey } from "./helpers.ts";
import { accepted, errorOf, fixtureUrl, postJson } from "./ingest-helpers.ts";

const transcribe = async (body: Record<string, unknown>) => {
  const { key } = await createKey();
  return postJson("/transcribe", key, body);
};

/** The 400 detail for a file_url. */
async function refusal(fileUrl: string): Promise<string> {
  const body = await errorOf(await transcribe({ file_url: fileUrl, language: "vi" }), 400);
  expect(body.code).toBe("bad_request");
  return body.detail as string;
}

describe("POST /transcribe", () => {
  it("checks the URL, stores the task with its params and sends it to the Queue", async () => {
    const fileUrl = fixtureUrl("/audio.mp3");
    const { id, key } = await createKey();
    const response = await postJson("/transcribe", key, {
      file_url: fileUrl,
      language: "Vietnamese",
      model: "some-other-model",
      context: "Hội nghị khoa học",
    });
    const task = await accepted(response);
    expect(task.status).toBe("queued");
    const record = await readTask(env, task.task_id);
    expect(record).toMatchObject({
      owner_key_id: id,
      kind: "transcribe",
      lane: "batch",
      status: "queued",
      source: { type: "url", url: fileUrl },
      params: { model_id: "whisper-base", language: "vi", context: "Hội nghị khoa học", file_url: fileUrl },
    });
  });

  it("defaults language to auto-detect (null) and context to empty with the base model", async () => {
    for (const language of [undefined, null, "auto"]) {
      const task = await accepted(await transcribe({ file_url: fixtureUrl("/audio.mp3"), language }));
      expect((await readTask(env, task.task_id))?.params).toEqual({
        model_id: "whisper-base",
        language: null,
        context: "",
        task: "transcribe",
        word_timestamps: false,
        file_url: fixtureUrl("/audio.mp3"),
        object_key: null,
      });
    }
  });

  it("refuses an unsupported language with 400", async () => {
    const body = await errorOf(
      await transcribe({ file_url: fixtureUrl("/audio.mp3"), language: "Klingon" }),
      400,
    );
    expect(body.detail).toMatch(/unsupported language "Klingon"/);
  });

  it("rejects unknown fields, a missing file_url and an over-long context with 422", async () => {
    const extra = await errorOf(await transcribe({ file_url: fixtureUrl("/audio.mp3"), speed: 2 }), 422);
    expect(extra.detail).toContainEqual({
      loc: ["body", "speed"],
      msg: "Extra inputs are not permitted",
      type: "extra_forbidden",
    });
    const missing = await errorOf(await transcribe({ language: "vi" }), 422);
    expect(missing.detail).toContainEqual({
      loc: ["body", "file_url"],
      msg: "Field required",
      type: "missing",
    });
    const long = await errorOf(
      await transcribe({ file_url: fixtureUrl("/audio.mp3"), context: "x".repeat(2001) }),
      422,
    );
    expect((long.detail as { loc: unknown[] }[])[0]?.loc).toEqual(["body", "context"]);
  });

  it("follows redirects and falls back to a one-byte GET where HEAD is refused", async () => {
    for (const path of ["/redirect", "/no-head", "/signed-get"]) {
      const task = await accepted(await transcribe({ file_url: fixtureUrl(path), language: "vi" }));
      expect((await readTask(env, task.task_id))?.source, path).toEqual({
        type: "url",
        url: fixtureUrl(path),
      });
    }
  });

  it("answers 400 naming the cause for an unusable URL", async () => {
    expect(await refusal("ftp://example.com/a.mp3")).toMatch(/scheme ftp is not allowed/);
    expect(await refusal("not a url")).toMatch(/not a valid absolute URL/);
    expect(await refusal(fixtureUrl("/missing"))).toMatch(/not found .*HTTP 404/);
    expect(await refusal(fixtureUrl("/private"))).toMatch(/access denied .*HTTP 403.*expired/);
    expect(await refusal(fixtureUrl("/expired"))).toMatch(/HTTP 410.*expired/);
    expect(await refusal(fixtureUrl("/empty"))).toMatch(/empty file/);
    expect(await refusal(fixtureUrl("/broken"))).toMatch(/answered HTTP 500/);
    expect(await refusal(fixtureUrl("/redirect-loop"))).toMatch(/more than 5 redirects/);
    expect(await refusal(fixtureUrl("/redirect-metadata"))).toMatch(
      /redirect of file_url is refused.*169\.254\.169\.254/,
    );
    expect(await refusal("http://nonexistent.example.com/a.mp3")).toMatch(
      /could not reach nonexistent\.example\.com/,
    );
  });

  it("answers 413 for a file over 2 GB, from Content-Length or Content-Range", async () => {
    for (const path of ["/huge", "/no-head-huge"]) {
      const body = await errorOf(await transcribe({ file_url: fixtureUrl(path), language: "vi" }), 413);
      expect(body).toMatchObject({ code: "payload_too_large", detail: expect.stringMatching(/limit/) });
    }
  });

  it("refuses private, loopback, link-local and internal addresses that are not allowlisted", async () => {
    const port = new URL(fixtureUrl("/")).port;
    for (const url of [
      `http://127.0.0.1:${Number(port) + 1}/a.mp3`, // the allowlisted host, another port
      "http://127.0.0.1/a.mp3",
      "http://10.0.0.5/a.mp3",
      "http://169.254.169.254/latest/meta-data/",
      `http://[::1]:${port}/audio.mp3`,
      "http://localhost/a.mp3",
      `http://localhost:${port}/audio.mp3`,
      "http://2130706433/a.mp3",
      "http://0x7f000001:8080/a.mp3",
      "http://metadata.google.internal/computeMetadata/v1/",
    ]) {
      expect(await refusal(url), url).toMatch(/file_url is refused/);
    }
  });
});
