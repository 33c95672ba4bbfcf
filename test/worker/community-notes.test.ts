/**
 * Community notes (content spec: `POST /v2/create/slide` `community` — "generate from a community
 * note"): an owner publishes a note under a display name, everyone lists it, any caller makes content
 * from it with community=true; without it, or once unpublished, another owner's note stays 404.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { readTask } from "../../platform/task-store.ts";
import { bearer, call, createKey } from "./helpers.ts";

async function post(path: string, key: string, body?: unknown): Promise<Response> {
  return call(path, {
    method: "POST",
    headers: { ...bearer(key), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

function createSlide(key: string, fields: Record<string, string>): Promise<Response> {
  return call("/v2/create/slide", {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ template_id: "slide-clean", ...fields }).toString(),
  });
}

const TEXT = "Tides rise and fall twice a day because the moon pulls on the oceans. ".repeat(8);

describe("community notes", () => {
  it("publishes a note, lists it without the publisher's key, and lets another key make a deck from it", async () => {
    const owner = await createKey("owner-key-name");
    const other = await createKey();
    const note = (await (await post("/v1/notes", owner.key, { content: TEXT })).json()) as {
      note_id: string;
      community: boolean;
    };
    expect(note.community).toBe(false);

    // Private: another key cannot use it, even naming community=true.
    expect((await createSlide(other.key, { note_id: note.note_id, community: "true" })).status).toBe(404);
    expect((await post(`/v1/notes/${note.note_id}/publish`, other.key, {})).status).toBe(404);

    const published = await post(`/v1/notes/${note.note_id}/publish`, owner.key, { display_name: "Ms Tran" });
    expect(published.status).toBe(200);
    expect(((await published.json()) as { community: boolean }).community).toBe(true);

    const page = await call("/v1/community/notes?limit=100", { headers: bearer(other.key) });
    const text = await page.text();
    expect(page.status).toBe(200);
    const listed = (JSON.parse(text) as { notes: { note_id: string; publisher: string; excerpt: string }[] })
      .notes;
    const entry = listed.find((n) => n.note_id === note.note_id);
    expect(entry).toMatchObject({ publisher: "Ms Tran" });
    expect(entry?.excerpt.length).toBeLessThanOrEqual(201);
    expect(text).not.toContain(owner.id);
    expect(text).not.toContain("owner-key-name");

    // Without community=true another owner's note is still 404; with it the deck is the caller's.
    expect((await createSlide(other.key, { note_id: note.note_id })).status).toBe(404);
    const made = await createSlide(other.key, { note_id: note.note_id, community: "true" });
    expect(made.status, await made.clone().text()).toBe(200);
    const taskId = ((await made.json()) as { data: { task_id: string; user_id: string } }).data.task_id;
    expect(await readTask(env, taskId)).toMatchObject({
      owner_key_id: other.id,
      params: { community: true, note: { note_id: note.note_id } },
    });
    expect((await call(`/v1/create/tasks/${taskId}/result`, { headers: bearer(other.key) })).status).toBe(
      200,
    );
    expect((await call(`/v1/create/tasks/${taskId}/result`, { headers: bearer(owner.key) })).status).toBe(
      404,
    );
    // The note itself stays its owner's to read and change.
    expect((await call(`/v1/notes/${note.note_id}`, { headers: bearer(other.key) })).status).toBe(404);

    // Unpublished: no new creations, and gone from the list; the deck already made stays.
    expect((await post(`/v1/notes/${note.note_id}/unpublish`, owner.key)).status).toBe(200);
    expect((await createSlide(other.key, { note_id: note.note_id, community: "true" })).status).toBe(404);
    const after = (await (
      await call("/v1/community/notes?limit=100", { headers: bearer(other.key) })
    ).json()) as {
      notes: { note_id: string }[];
    };
    expect(after.notes.map((n) => n.note_id)).not.toContain(note.note_id);
    expect(await readTask(env, taskId)).toMatchObject({ owner_key_id: other.id });
  });

  it("publishes as anonymous without a body, and refuses a bad display name", async () => {
    const owner = await createKey();
    const { note_id } = (await (await post("/v1/notes", owner.key, { content: TEXT })).json()) as {
      note_id: string;
    };
    expect((await post(`/v1/notes/${note_id}/publish`, owner.key)).status).toBe(200);
    const page = (await (
      await call("/v1/community/notes?limit=100", { headers: bearer(owner.key) })
    ).json()) as {
      notes: { note_id: string; publisher: string }[];
    };
    expect(page.notes.find((n) => n.note_id === note_id)?.publisher).toBe("anonymous");
    const bad = await post(`/v1/notes/${note_id}/publish`, owner.key, { display_name: "x".repeat(81) });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { error_key: string }).error_key).toBe("validation_error");
  });

  it("accepts community=true on shorts and quiz videos too", async () => {
    const owner = await createKey();
    const other = await createKey();
    const { note_id } = (await (await post("/v1/notes", owner.key, { content: TEXT })).json()) as {
      note_id: string;
    };
    await post(`/v1/notes/${note_id}/publish`, owner.key, {});
    const form = (path: string, fields: Record<string, string>) =>
      call(path, {
        method: "POST",
        headers: { ...bearer(other.key), "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields).toString(),
      });
    expect(
      (await form("/v2/create/shorts", { note_id, voice_id: "en-female", community: "true" })).status,
    ).toBe(200);
    expect(
      (await form("/v2/create/quiz-video", { note_id, voice_id: "en-female", community: "1" })).status,
    ).toBe(200);
    expect(
      (await form("/v2/create/shorts", { note_id, voice_id: "en-female", community: "maybe" })).status,
    ).toBe(400);
  });
});
