/**
 * Per-key ownership on every id-taking route of every service: another key's task, note, upload or
 * Idempotency-Key is answered exactly like an unknown one (404 in the service's envelope, never 403,
 * never the data, never a hint such as "not finished yet"), and nothing of the owner's changes.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Note } from "../../worker/schemas/notes.ts";
import type { TaskAccepted } from "../../worker/schemas/tasks.ts";
import type { PresignResponse } from "../../worker/schemas/uploads.ts";
import { expectEnvelope } from "./fuzz-helpers.ts";
import { bearer, call, createKey, createTranscription, deliver, resetDispatcher } from "./helpers.ts";
import { fixtureUrl, postJson } from "./ingest-helpers.ts";
import { sampleResult, TestNode } from "./node-client.ts";

let owner: { id: string; key: string };
let stranger: { id: string; key: string };
const own = { doneTask: "", queuedTask: "", contentTask: "", note: "", upload: "", noteText: "" };

beforeAll(async () => {
  await resetDispatcher();
  owner = await createKey("owner");
  stranger = await createKey("stranger");
  // a finished transcription, a queued one, a note, a content render and a presigned upload of the owner
  const done = await createTranscription(owner.id);
  await deliver([done.task_id]);
  const node = new TestNode();
  const [lease] = await node.lease();
  expect((await node.complete(lease?.lease_id ?? "", sampleResult("the owner's secret words"))).status).toBe(
    204,
  );
  own.doneTask = done.task_id;
  own.queuedTask = (await createTranscription(owner.id)).task_id;
  own.noteText = "The owner's private note about photosynthesis.";
  own.note = (
    (await (await postJson("/v1/notes", owner.key, { content: own.noteText })).json()) as Note
  ).note_id;
  const voices = (await (await call("/v1/voices", { headers: bearer(owner.key) })).json()) as {
    voices: { voice_id: string }[];
  };
  const render = await call("/v2/create/shorts", {
    method: "POST",
    headers: { ...bearer(owner.key), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ note_id: own.note, voice_id: voices.voices[0]?.voice_id ?? "" }).toString(),
  });
  expect(render.status).toBe(200);
  own.contentTask = ((await render.json()) as { data: { task_id: string } }).data.task_id;
  own.upload = (
    (await (await postJson("/uploads/presign", owner.key, { filename: "a.mp3" })).json()) as PresignResponse
  ).object_key;
});

/** Asserts a 404 in the path's envelope that gives nothing of the owner's away. */
async function expectUnknown(response: Response, path: string): Promise<void> {
  const text = await response.text();
  expect(response.status, `${path}: ${text}`).toBe(404);
  expectEnvelope(path, { status: 404, body: JSON.parse(text), text, headers: response.headers }, path);
  for (const secret of [own.noteText, "secret words", owner.id]) expect(text, path).not.toContain(secret);
}

describe("another key's objects are unknown (404), on every id-taking route", () => {
  it("transcription tasks: poll, subtitles, and the notes made from them (finished or not)", async () => {
    for (const id of [own.doneTask, own.queuedTask]) {
      await expectUnknown(
        await call(`/transcribe/${id}`, { headers: bearer(stranger.key) }),
        "/transcribe/{id}",
      );
      // the subtitle export: 404, not the file, and for the queued one not 409 either
      for (const format of ["srt", "vtt", "txt", "json"]) {
        await expectUnknown(
          await call(`/transcribe/${id}/subtitles?format=${format}`, { headers: bearer(stranger.key) }),
          "/transcribe/{id}/subtitles",
        );
      }
      // not 409 "not finished yet" for the queued one: that would confirm it exists
      await expectUnknown(
        await postJson("/v1/notes", stranger.key, { transcription_task_id: id }),
        "/v1/notes",
      );
      // nor can another key delete (cancel) it; the owner's task stays as it was
      await expectUnknown(
        await call(`/transcribe/${id}`, { method: "DELETE", headers: bearer(stranger.key) }),
        "/transcribe/{id}",
      );
    }
    const queued = await call(`/transcribe/${own.queuedTask}`, { headers: bearer(owner.key) });
    expect(((await queued.json()) as { status: string }).status).toBe("queued");
    // the owner still sees it
    expect((await call(`/transcribe/${own.doneTask}`, { headers: bearer(owner.key) })).status).toBe(200);
    const subtitles = await call(`/transcribe/${own.doneTask}/subtitles`, { headers: bearer(owner.key) });
    expect(new TextDecoder().decode(await subtitles.arrayBuffer())).toContain("the owner's secret words");
  });

  it("content tasks: the result poll and the delete", async () => {
    const path = `/v1/create/tasks/${own.contentTask}/result`;
    await expectUnknown(await call(path, { headers: bearer(stranger.key) }), path);
    const deletePath = `/v1/create/tasks/${own.contentTask}`;
    await expectUnknown(
      await call(deletePath, { method: "DELETE", headers: bearer(stranger.key) }),
      deletePath,
    );
    expect((await call(path, { headers: bearer(owner.key) })).status).toBe(200);
  });

  it("notes: read, delete (the note survives), and every /v2/create form naming it", async () => {
    const path = `/v1/notes/${own.note}`;
    await expectUnknown(await call(path, { headers: bearer(stranger.key) }), path);
    await expectUnknown(await call(path, { method: "DELETE", headers: bearer(stranger.key) }), path);
    expect((await call(path, { headers: bearer(owner.key) })).status).toBe(200);
    for (const route of ["shorts", "quiz-video", "slide"]) {
      const voices = (await (await call("/v1/voices", { headers: bearer(stranger.key) })).json()) as {
        voices: { voice_id: string }[];
      };
      const templates = (await (await call("/v1/templates", { headers: bearer(stranger.key) })).json()) as {
        templates: { template_id: string; kind: string }[];
      };
      const form = new URLSearchParams({
        note_id: own.note,
        voice_id: voices.voices[0]?.voice_id ?? "",
      });
      // quiz videos have a default template; slides need one of theirs
      if (route === "slide")
        form.set("template_id", templates.templates.find((t) => t.kind === "slide")?.template_id ?? "");
      const response = await call(`/v2/create/${route}`, {
        method: "POST",
        headers: { ...bearer(stranger.key), "content-type": "application/x-www-form-urlencoded" },
        body: form.toString(),
      });
      await expectUnknown(response, `/v2/create/${route}`);
    }
  });

  it("uploads: POST /transcribe/object with another key's object_key", async () => {
    await env.MEDIA.put(own.upload, new Uint8Array(16));
    await expectUnknown(
      await postJson("/transcribe/object", stranger.key, { object_key: own.upload }),
      "/transcribe/object",
    );
  });

  it("lists: /history and /v1/notes show only the caller's own", async () => {
    const history = (await (await call("/history", { headers: bearer(stranger.key) })).json()) as {
      jobs: { task_id: string }[];
      total: number;
    };
    expect(history.jobs.map((j) => j.task_id)).not.toContain(own.doneTask);
    const notes = (await (await call("/v1/notes", { headers: bearer(stranger.key) })).json()) as {
      notes: { note_id: string }[];
    };
    expect(notes.notes.map((n) => n.note_id)).not.toContain(own.note);
  });

  it("Idempotency-Key: the same key from another API key creates its own task, never returns the owner's", async () => {
    const idem = { "idempotency-key": "shared-retry-key-1" };
    const body = JSON.stringify({ file_url: fixtureUrl("/audio.mp3") });
    const send = (key: string) =>
      call("/transcribe", {
        method: "POST",
        headers: { ...bearer(key), "content-type": "application/json", ...idem },
        body,
      });
    const first = (await (await send(owner.key)).json()) as TaskAccepted;
    const other = await send(stranger.key);
    expect(other.status).toBe(200);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    expect(((await other.json()) as TaskAccepted).task_id).not.toBe(first.task_id);
  });

  it("an id of the wrong kind, even one's own, is unknown too", async () => {
    await expectUnknown(
      await call(`/transcribe/${own.contentTask}`, { headers: bearer(owner.key) }),
      "/transcribe/{id}",
    );
    await expectUnknown(
      await call(`/transcribe/${own.contentTask}/subtitles`, { headers: bearer(owner.key) }),
      "/transcribe/{id}/subtitles",
    );
    await expectUnknown(
      await postJson("/v1/notes", owner.key, { transcription_task_id: own.contentTask }),
      "/v1/notes",
    );
    await expectUnknown(
      await call(`/transcribe/${own.contentTask}`, { method: "DELETE", headers: bearer(owner.key) }),
      "/transcribe/{id}",
    );
    await expectUnknown(
      await call(`/v1/create/tasks/${own.doneTask}`, { method: "DELETE", headers: bearer(owner.key) }),
      "/v1/create/tasks/{id}",
    );
  });
});
