import { beforeEach, describe, expect, it } from "vitest";
import type { Note, NotePage } from "../../worker/schemas/notes.ts";
import { bearer, call, createKey, createTranscription, deliver, resetDispatcher } from "./helpers.ts";
import { sampleResult, TestNode } from "./node-client.ts";

beforeEach(resetDispatcher);

function post(key: string, body: unknown): Promise<Response> {
  return call("/v1/notes", {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

async function created(response: Response): Promise<Note> {
  expect(response.status).toBe(201);
  return (await response.json()) as Note;
}

async function contentError(response: Response, status: number) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: string; error_key: string; message: string };
  expect(Object.keys(body).sort()).toEqual(["error", "error_key", "message"]);
  return body;
}

describe("POST /v1/notes", () => {
  it("stores typed text with a derived title and the language detected", async () => {
    const { key } = await createKey();
    const vi = await created(
      await post(key, {
        content: "Quang hợp là quá trình cây xanh chuyển hóa năng lượng ánh sáng. Lá cây chứa diệp lục.",
      }),
    );
    expect(vi).toMatchObject({
      title: "Quang hợp là quá trình cây xanh chuyển hóa năng…",
      language: "vi",
    });
    expect(vi.char_count).toBeGreaterThan(50);
    const en = await created(
      await post(key, { content: "# Photosynthesis\n\nPlants turn light into sugar every day." }),
    );
    expect(en).toMatchObject({
      title: "Photosynthesis",
      language: "en",
      duration_sec: null,
      source_task_id: null,
    });
    const given = await created(
      await post(key, { title: "Mine", content: "Bonjour tout le monde", language: "French" }),
    );
    expect(given).toMatchObject({ title: "Mine", language: "fr" });
  });

  it("makes a finished transcription of the same key into a note", async () => {
    const { id, key } = await createKey();
    const task = await createTranscription(id);
    await deliver([task.task_id]);
    const early = await contentError(await post(key, { transcription_task_id: task.task_id }), 409);
    expect(early.error_key).toBe("transcription_not_finished");
    const node = new TestNode();
    const [lease] = await node.lease();
    await node.complete(lease!.lease_id, sampleResult("Xin chào các bạn. Hôm nay chúng ta học tiếng Việt."));
    const note = await created(await post(key, { transcription_task_id: task.task_id }));
    expect(note).toMatchObject({
      title: "Xin chào các bạn",
      content: "Xin chào các bạn. Hôm nay chúng ta học tiếng Việt.",
      language: "vi",
      duration_sec: 1.5,
      source_task_id: task.task_id,
    });
    const other = await createKey("other");
    const theirs = await contentError(await post(other.key, { transcription_task_id: task.task_id }), 404);
    expect(theirs.error_key).toBe("transcription_not_found");
  });

  it("refuses bad bodies with the content envelope", async () => {
    const { key } = await createKey();
    for (const body of [{}, { content: "" }, { content: "x".repeat(100_001) }, { content: "hi", extra: 1 }]) {
      expect((await contentError(await post(key, body), 422)).error_key).toBe("validation_error");
    }
    expect(
      (await contentError(await post(key, { content: "hello there", language: "Klingon" }), 400)).error_key,
    ).toBe("unsupported_language");
    expect((await contentError(await post("vx_nope", { content: "x" }), 401)).error_key).toBe("unauthorized");
  });
});

describe("reading and deleting notes", () => {
  it("lists only the caller's notes newest first, reads and deletes its own, 404 for another key's", async () => {
    const mine = await createKey("mine");
    const theirs = await createKey("theirs");
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(
        (await created(await post(mine.key, { content: `Note number ${i} about the solar system.` })))
          .note_id,
      );
      await new Promise((r) => setTimeout(r, 2));
    }
    const foreign = await created(await post(theirs.key, { content: "Somebody else's note text." }));
    const page = (await (
      await call("/v1/notes?limit=2&skip=1", { headers: bearer(mine.key) })
    ).json()) as NotePage;
    expect(page).toMatchObject({ total: 3, limit: 2, skip: 1 });
    expect(page.notes.map((n) => n.note_id)).toEqual([ids[1], ids[0]]);
    expect(page.notes[0]).toMatchObject({ excerpt: "Note number 1 about the solar system." });
    expect(page.notes[0]).not.toHaveProperty("content");

    const one = await call(`/v1/notes/${ids[2]}`, { headers: bearer(mine.key) });
    expect(((await one.json()) as Note).content).toBe("Note number 2 about the solar system.");
    for (const path of [`/v1/notes/${foreign.note_id}`, "/v1/notes/unknown"]) {
      expect((await contentError(await call(path, { headers: bearer(mine.key) }), 404)).error_key).toBe(
        "note_not_found",
      );
    }
    const denied = await call(`/v1/notes/${foreign.note_id}`, {
      method: "DELETE",
      headers: bearer(mine.key),
    });
    expect((await contentError(denied, 404)).error_key).toBe("note_not_found");
    expect((await call(`/v1/notes/${ids[0]}`, { method: "DELETE", headers: bearer(mine.key) })).status).toBe(
      204,
    );
    expect((await call(`/v1/notes/${ids[0]}`, { headers: bearer(mine.key) })).status).toBe(404);
    expect((await call(`/v1/notes/${foreign.note_id}`, { headers: bearer(theirs.key) })).status).toBe(200);
  });
});
