import { describe, expect, it } from "vitest";
import { bearer, call, createKey } from "./helpers.ts";
import { accepted, fixtureUrl, postJson } from "./ingest-helpers.ts";

/** The spec's history params: object_key and file_url are each a string or null, never absent. */
describe("GET /history params", () => {
  it("shows object_key and file_url as null when unset", async () => {
    const { key } = await createKey();
    const fileUrl = fixtureUrl("/audio.mp3");
    await accepted(await postJson("/transcribe", key, { file_url: fileUrl, language: "vi" }));
    const form = new FormData();
    form.append("file", new File([new Uint8Array(3000).fill(5)], "clip.mp3", { type: "audio/mpeg" }));
    await accepted(await call("/transcribe/upload", { method: "POST", headers: bearer(key), body: form }));

    const page = (await (await call("/history", { headers: bearer(key) })).json()) as {
      jobs: { params: Record<string, unknown> }[];
    };
    const [fromUpload, fromUrl] = page.jobs.map((job) => job.params);
    expect(fromUrl).toMatchObject({ file_url: fileUrl, object_key: null });
    expect(fromUpload).toMatchObject({ file_url: null, object_key: expect.stringMatching(/^uploads\//) });
  });
});
