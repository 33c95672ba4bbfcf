import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { db } from "../../platform/db.ts";
import { apiKeys } from "../../platform/schema.ts";
import { readTask } from "../../platform/task-store.ts";
import { generateServiceKey } from "../../worker/auth/key-material.ts";
import type { Note, NotePage } from "../../worker/schemas/notes.ts";
import { workerTaskKind } from "../../worker/tasks/kinds/index.ts";
import { created, createForm, createNote, errorKey, leaseTask } from "./content-helpers.ts";
import { bearer, call, createKey, resetDispatcher } from "./helpers.ts";
import { callMinted } from "./ingest-helpers.ts";
import { TestNode } from "./node-client.ts";

/**
 * POST /v2/create/translation in workerd: the form's error_keys, the task as a node leases it, and a
 * completion kept as exactly one new note of the task's owner, however often it is stored.
 */

beforeEach(resetDispatcher);

const ENGLISH = "The Mekong flows through six countries. It feeds sixty million people.";

const note = (key: string, content = ENGLISH) => createNote(key, content);

function createTranslation(key: string, fields: Record<string, string>) {
  return call("/v2/create/translation", {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
}

async function listNotes(key: string): Promise<NotePage> {
  return (await (await call("/v1/notes?limit=100", { headers: bearer(key) })).json()) as NotePage;
}

const TRANSLATED = "Sông Mê Kông chảy qua sáu quốc gia. Nó nuôi sống sáu mươi triệu người.";

describe("POST /v2/create/translation", () => {
  it("translates into a new note of the caller: exactly one, even when the completion is stored twice", async () => {
    const { key } = await createKey();
    const source = await note(key);
    const taskId = await created(await createTranslation(key, { note_id: source.note_id, language: "vi" }));
    const node = new TestNode();
    const lease = await leaseTask(node, taskId);
    expect(lease.kind).toBe("note_translation");
    expect(lease.params).toEqual({
      note: { note_id: source.note_id, title: source.title, content: ENGLISH, language: "en" },
      language: "vi",
      community: false,
    });

    const files = [];
    for (const [name, role, type, text] of [
      ["Mê Kông.md", "markdown", "text/markdown", `# Mê Kông\n\n${TRANSLATED}\n`],
      ["Mê Kông.json", "json", "application/json", JSON.stringify({ content: TRANSLATED })],
    ] as const) {
      const body = new TextEncoder().encode(text);
      const response = await node.uploadOutput(lease.lease_id, encodeURIComponent(name), body, type);
      expect(response.status, await response.clone().text()).toBe(200);
      const stored = (await response.json()) as { object_key: string; bytes: number; content_type: string };
      files.push({ role, ...stored });
    }
    const completion = {
      note_id: source.note_id,
      title: "Mê Kông",
      language: "vi",
      content: TRANSLATED,
      sentence_count: 3,
      outputs: files,
    };
    // A first attempt stored the note, then the Worker died before the task's status was written
    // (the kind's own step, as completeLease runs it) ...
    const kind = workerTaskKind("note_translation");
    const first = await kind.storedResult(env, taskId, { kind: "note_translation", result: completion });
    expect(first).toMatchObject({ note_id: taskId, source_note_id: source.note_id });
    // ... so the node posts the completion again, which is kept, and finds the note already there.
    expect((await node.complete(lease.lease_id, completion, "note_translation")).status).toBe(204);
    // A retry whose answer was lost: the lease is spent, nothing more is made.
    expect((await node.complete(lease.lease_id, completion, "note_translation")).status).toBe(410);

    const page = await listNotes(key);
    expect(page.total).toBe(2);
    const made = page.notes.filter((n) => n.note_id !== source.note_id);
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({
      note_id: taskId,
      title: "Mê Kông",
      language: "vi",
      source_task_id: taskId,
    });
    const full = (await (await call(`/v1/notes/${taskId}`, { headers: bearer(key) })).json()) as Note;
    expect(full.content).toBe(TRANSLATED);

    const poll = await call(`/v1/create/tasks/${taskId}/result`, { headers: bearer(key) });
    const body = (await poll.json()) as { status: string; data: Record<string, unknown> };
    expect(body.status).toBe("SUCCESS");
    expect(body.data).toMatchObject({
      type: "note_translation",
      note_id: taskId,
      source_note_id: source.note_id,
      title: "Mê Kông",
      language: "vi",
      sentence_count: 3,
      files: [
        { role: "markdown", content_type: "text/markdown" },
        { role: "json", content_type: "application/json" },
      ],
    });
    // The note's text lives in the note, not in the task's result.
    expect(body.data).not.toHaveProperty("content");
    expect((await readTask(env, taskId))?.result).not.toHaveProperty("content");
    const markdown = (body.data.files as { url: string }[])[0];
    const download = await callMinted(markdown?.url ?? "");
    expect(download.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(download.headers.get("content-disposition")).toMatch(/^attachment/);
    expect(await download.text()).toContain(TRANSLATED);

    // The new note feeds the other create routes like any other.
    await created(
      await call("/v2/create/shorts", {
        method: "POST",
        headers: { ...bearer(key), "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ note_id: taskId, voice_id: "vi-female" }).toString(),
      }),
    );
  });

  it("keeps a user's translation as that user's note (a service key acting for the user)", async () => {
    const made = await generateServiceKey();
    await db(env).insert(apiKeys).values({
      id: made.id,
      name: "backend",
      keyHash: made.hash,
      prefix: made.prefix,
      createdAt: Date.now(),
      kind: "service",
    });
    const asDana = { ...bearer(made.secret), "x-voxedge-user": "dana" };
    const written = await call("/v1/notes", {
      method: "POST",
      headers: { ...asDana, "content-type": "application/json" },
      body: JSON.stringify({ content: ENGLISH }),
    });
    const source = (await written.json()) as Note;
    const taskId = await created(
      await call("/v2/create/translation", {
        method: "POST",
        headers: { ...asDana, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ note_id: source.note_id, language: "vi" }).toString(),
      }),
    );
    const node = new TestNode();
    const lease = await leaseTask(node, taskId);
    const stored = await node.uploadOutput(
      lease.lease_id,
      "a.md",
      new TextEncoder().encode(TRANSLATED),
      "text/markdown",
    );
    const output = (await stored.json()) as { object_key: string; bytes: number; content_type: string };
    const completion = {
      note_id: source.note_id,
      title: "Mê Kông",
      language: "vi",
      content: TRANSLATED,
      sentence_count: 2,
      outputs: [{ role: "markdown", ...output }],
    };
    expect((await node.complete(lease.lease_id, completion, "note_translation")).status).toBe(204);
    const dana = (await (await call("/v1/notes", { headers: asDana })).json()) as NotePage;
    expect(dana.notes.map((n) => n.note_id).sort()).toEqual([source.note_id, taskId].sort());
    // the service key itself, or another user, does not see it
    const itself = (await (await call("/v1/notes", { headers: bearer(made.secret) })).json()) as NotePage;
    expect(itself.total).toBe(0);
    const erin = await call(`/v1/notes/${taskId}`, {
      headers: { ...bearer(made.secret), "x-voxedge-user": "erin" },
    });
    expect(erin.status).toBe(404);
  });

  it("makes no note for a task deleted (or ended) before its completion is kept", async () => {
    const { key } = await createKey();
    const source = await note(key);
    const taskId = await created(await createTranslation(key, { note_id: source.note_id, language: "vi" }));
    const lease = await leaseTask(new TestNode(), taskId);
    // The completion passed its lease check, then the owner deleted the task before it was kept.
    expect(
      (await call(`/v1/create/tasks/${taskId}`, { method: "DELETE", headers: bearer(key) })).status,
    ).toBe(204);
    const completion = {
      note_id: source.note_id,
      title: "Mê Kông",
      language: "vi",
      content: TRANSLATED,
      sentence_count: 2,
      outputs: [
        {
          role: "markdown" as const,
          object_key: `outputs/${taskId}/x/a.md`,
          content_type: "text/markdown",
          bytes: 1,
        },
      ],
    };
    await workerTaskKind("note_translation").storedResult(env, taskId, {
      kind: "note_translation",
      result: completion,
    });
    expect((await listNotes(key)).notes.map((n) => n.note_id)).toEqual([source.note_id]);
    expect(lease.kind).toBe("note_translation");
  });

  it("answers every request error with its error_key and creates no task", async () => {
    const { id, key } = await createKey();
    const other = await createKey("other");
    const mine = (await note(key)).note_id;
    const vietnamese = (await note(key, TRANSLATED)).note_id;
    const theirs = (await note(other.key)).note_id;
    const cases: [Record<string, string>, number, string][] = [
      [{ language: "vi" }, 400, "missing_field"],
      [{ note_id: mine }, 400, "missing_field"],
      [{ note_id: mine, language: "Klingon" }, 400, "unsupported_language"],
      [{ note_id: mine, language: "fr" }, 400, "unsupported_language"],
      [{ note_id: mine, language: "en" }, 400, "same_language"],
      [{ note_id: vietnamese, language: "vietnamese" }, 400, "same_language"],
      [{ note_id: mine, language: "vi", community: "maybe" }, 400, "invalid_boolean"],
      [{ note_id: theirs, language: "vi" }, 404, "note_not_found"],
      [{ note_id: mine, language: "vi", webhook_url: "ftp://example.com/x" }, 400, "invalid_webhook"],
    ];
    for (const [fields, status, expected] of cases) {
      expect(await errorKey(await createTranslation(key, fields), status), JSON.stringify(fields)).toBe(
        expected,
      );
    }
    const { results } = await env.DB.prepare("SELECT COUNT(*) AS n FROM jobs WHERE owner_key_id = ?")
      .bind(id)
      .all();
    expect(results[0]).toEqual({ n: 0 });
    // A Vietnamese note into English is fine.
    await created(await createTranslation(key, { note_id: vietnamese, language: "en" }));
  });

  it("refuses at once an artifact in a language no connected node translates the note into", async () => {
    // npm start's offline backend, Apertium, has en<->es and no Vietnamese: such a task was queued,
    // then failed on every attempt on the node.
    const { id, key } = await createKey();
    const english = (await note(key)).note_id;
    const apertium = new TestNode({
      mt_loaded: true,
      mt_model: "apertium",
      mt_pairs: [
        ["en", "es"],
        ["es", "en"],
      ],
    });
    await apertium.lease(1, 0);
    const refusals = [
      await createTranslation(key, { note_id: english, language: "vi" }),
      await createForm("mindmap", key, { note_id: english, language: "vi" }),
      // a Vietnamese voice narrates an English note in Vietnamese
      await createForm("shorts", key, { note_id: english, voice_id: "vi-female" }),
      await createForm("quiz-video", key, { note_id: english, voice_id: "vi-male" }),
    ];
    for (const response of refusals) {
      const body = (await response.clone().json()) as { message: string };
      expect(await errorKey(response, 400)).toBe("translation_unavailable");
      expect(body.message).toContain("en->vi");
      expect(body.message).toContain("offered: en->es, es->en");
    }
    const { results } = await env.DB.prepare("SELECT COUNT(*) AS n FROM jobs WHERE owner_key_id = ?")
      .bind(id)
      .all();
    expect(results[0]).toEqual({ n: 0 });
    // The note's own language needs no translation; a node with the pair takes the translation.
    await created(await createForm("mindmap", key, { note_id: english }));
    await created(await createForm("shorts", key, { note_id: english, voice_id: "en-female" }));
    const libre = new TestNode({
      node_id: "n-libre",
      mt_loaded: true,
      mt_model: "libretranslate",
      mt_pairs: [["en", "vi"]],
    });
    await libre.lease(1, 0);
    await created(await createTranslation(key, { note_id: english, language: "vi" }));
  });

  it("queues a translation while no node is connected: the fleet that takes it decides", async () => {
    const { key } = await createKey();
    const english = (await note(key)).note_id;
    await created(await createTranslation(key, { note_id: english, language: "vi" }));
  });
});
