import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { readTask } from "../../platform/task-store.ts";
import type { Lease } from "../../protocol/node.ts";
import { created, createForm, createNote, errorKey, leaseTask } from "./content-helpers.ts";
import { call, createKey, resetDispatcher } from "./helpers.ts";
import { bytes, callMinted } from "./ingest-helpers.ts";
import { TestNode } from "./node-client.ts";

/**
 * Audio overviews (/v2/create/podcast) and video overviews (/v2/create/video-overview) in workerd:
 * created with their params, leased as their kind, completed with their files, polled as SUCCESS with
 * every file and the spec's link field; every request error its own error_key.
 */

beforeEach(resetDispatcher);

const ENGLISH = "The Mekong flows through six countries. It feeds sixty million people every year.";
const VIETNAMESE = "Sông Mê Kông chảy qua sáu quốc gia. Dòng sông nuôi sống sáu mươi triệu người mỗi năm.";

const note = (key: string, content = ENGLISH) => createNote(key, content);

async function poll(taskId: string, key: string) {
  const response = await call(`/v1/create/tasks/${taskId}/result`, { headers: { "x-api-key": key } });
  return (await response.json()) as { status: string; data: Record<string, unknown> };
}

/** Uploads each file as the node does and returns the completion's outputs. */
async function upload(node: TestNode, lease: Lease, files: [string, string, string, number][]) {
  const outputs = [];
  for (const [name, role, type, size] of files) {
    const response = await node.uploadOutput(lease.lease_id, name, bytes(size, 3), type);
    expect(response.status, `${name}: ${await response.clone().text()}`).toBe(200);
    outputs.push({ role, ...((await response.json()) as object) });
  }
  return outputs;
}

describe("POST /v2/create/podcast", () => {
  it("queues an audio overview, leased as podcast; its SUCCESS links audio_url and lists every file", async () => {
    const { key } = await createKey();
    const source = await note(key);
    const taskId = await created(
      await createForm("podcast", key, {
        note_id: source.note_id,
        format: "brief",
        length: "short",
        voice_id: "en-gb-male",
      }),
    );
    const node = new TestNode();
    const lease = await leaseTask(node, taskId);
    expect(lease).toMatchObject({
      kind: "podcast",
      params: {
        note: { note_id: source.note_id, content: source.content },
        format: "brief",
        length: "short",
        voice_id: "en-gb-male",
        voice_id_2: null,
        language: null,
      },
    });
    const outputs = await upload(node, lease, [
      ["overview.m4a", "audio", "audio/mp4", 4000],
      ["overview.mp3", "audio_mp3", "audio/mpeg", 3000],
      ["overview.json", "json", "application/json", 500],
      ["overview.txt", "txt", "text/plain", 300],
    ]);
    const result = {
      note_id: source.note_id,
      title: "The Mekong",
      language: "en",
      format: "brief",
      duration: 41.2,
      voices: { A: "en-gb-male" },
      chapters: [{ title: "Introduction", start: 0, end: 41.2 }],
      text_source: "extractive",
      outputs,
    };
    expect((await node.complete(lease.lease_id, result, "podcast")).status).toBe(204);
    const body = await poll(taskId, key);
    expect(body).toMatchObject({
      status: "SUCCESS",
      data: {
        type: "podcast",
        note_id: source.note_id,
        title: "The Mekong",
        language: "en",
        format: "brief",
        duration: 41.2,
        voices: { A: "en-gb-male" },
        chapters: [{ title: "Introduction", start: 0, end: 41.2 }],
        text_source: "extractive",
      },
    });
    const data = body.data as { audio_url: string; files: { role: string; url: string }[] };
    expect(data.files.map((file) => file.role)).toEqual(["audio", "audio_mp3", "json", "txt"]);
    expect(data.audio_url).toBe(data.files[0]?.url);
    expect(data).not.toHaveProperty("video_url");
    const script = await callMinted(data.files[2]!.url);
    expect(script.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(script.headers.get("x-content-type-options")).toBe("nosniff");
    expect(script.headers.get("content-disposition")).toMatch(/^attachment; filename="overview\.json"$/);
    expect((await callMinted(data.audio_url)).headers.get("content-type")).toBe("audio/mp4");
  });

  it("defaults to a deep dive of default length in the note's language, voices chosen on the node", async () => {
    const { key } = await createKey();
    const source = await note(key, VIETNAMESE);
    const record = await readTask(
      env,
      await created(await createForm("podcast", key, { note_id: source.note_id, voice_id_2: "vi-male" })),
    );
    expect(record?.params).toMatchObject({
      format: "deep_dive",
      length: "default",
      voice_id: null,
      voice_id_2: "vi-male",
      language: null,
    });
  });

  it("answers every wrong field with its own error_key, another key's note with 404, and creates no task", async () => {
    const { id, key } = await createKey();
    const other = await createKey("other");
    const mine = (await note(key)).note_id;
    const theirs = (await note(other.key)).note_id;
    const cases: [Record<string, string>, number, string][] = [
      [{}, 400, "missing_field"],
      [{ note_id: mine, format: "interview" }, 400, "invalid_format"],
      [{ note_id: mine, length: "epic" }, 400, "invalid_length"],
      [{ note_id: mine, voice_id: "robot" }, 400, "unknown_voice"],
      [{ note_id: mine, voice_id_2: "robot" }, 400, "unknown_voice"],
      [{ note_id: mine, language: "fr" }, 400, "unsupported_language"],
      [{ note_id: mine, community: "maybe" }, 400, "invalid_boolean"],
      // the note is English: a Vietnamese host cannot read it
      [{ note_id: mine, voice_id: "vi-female" }, 400, "voice_language_mismatch"],
      [{ note_id: mine, voice_id_2: "vi-male" }, 400, "voice_language_mismatch"],
      // asked in Vietnamese: an English voice cannot read it
      [{ note_id: mine, language: "vi", voice_id: "en-female" }, 400, "voice_language_mismatch"],
      [{ note_id: mine, voice_id: "en-male", voice_id_2: "en-male" }, 400, "duplicate_voice"],
      // host A left to its default (the female voice), host B asked to be that same voice
      [{ note_id: mine, voice_id_2: "en-female" }, 400, "duplicate_voice"],
      [{ note_id: theirs }, 404, "note_not_found"],
    ];
    for (const [fields, status, expected] of cases) {
      expect(await errorKey(await createForm("podcast", key, fields), status), JSON.stringify(fields)).toBe(
        expected,
      );
    }
    // a brief has one host: voice_id_2 is not read, so it cannot clash
    await created(
      await createForm("podcast", key, { note_id: mine, format: "brief", voice_id_2: "en-female" }),
    );
    const { results } = await env.DB.prepare("SELECT COUNT(*) AS n FROM jobs WHERE owner_key_id = ?")
      .bind(id)
      .all();
    expect(results[0]).toEqual({ n: 1 });
  });
});

describe("a render's files", () => {
  it("may be JSON, text, SRT or VTT besides media and documents, never a type a browser runs as a page (SVG only sandboxed)", async () => {
    const { key } = await createKey();
    const taskId = await created(await createForm("podcast", key, { note_id: (await note(key)).note_id }));
    const node = new TestNode();
    const lease = await leaseTask(node, taskId);
    for (const type of ["text/html", "application/javascript", "application/xhtml+xml", "text/xml"]) {
      const refused = await node.uploadOutput(lease.lease_id, "page.html", bytes(10, 1), type);
      expect(refused.status, type).toBe(400);
    }
  });
});

describe("POST /v2/create/video-overview", () => {
  it("queues a narrated deck, leased as video_overview; its SUCCESS links video_url and lists every file", async () => {
    const { key } = await createKey();
    const source = await note(key);
    const taskId = await created(
      await createForm("video-overview", key, { note_id: source.note_id, language: "vi" }),
    );
    const node = new TestNode();
    const lease = await leaseTask(node, taskId);
    expect(lease).toMatchObject({
      kind: "video_overview",
      params: {
        note: { note_id: source.note_id },
        template_id: "slide-clean",
        voice_id: null,
        language: "vi",
        community: false,
      },
    });
    const outputs = await upload(node, lease, [
      ["overview.mp4", "video", "video/mp4", 9000],
      ["overview.srt", "srt", "application/x-subrip", 400],
      ["overview.vtt", "vtt", "text/vtt", 400],
      ["overview.pdf", "pdf", "application/pdf", 2000],
    ]);
    const result = {
      note_id: source.note_id,
      title: "Sông Mê Kông",
      language: "vi",
      duration: 52.4,
      slide_count: 4,
      outputs,
    };
    expect((await node.complete(lease.lease_id, result, "video_overview")).status).toBe(204);
    const body = await poll(taskId, key);
    expect(body).toMatchObject({
      status: "SUCCESS",
      data: { type: "video_overview", title: "Sông Mê Kông", language: "vi", duration: 52.4, slide_count: 4 },
    });
    const data = body.data as { video_url: string; files: { role: string; url: string }[] };
    expect(data.files.map((file) => file.role)).toEqual(["video", "srt", "vtt", "pdf"]);
    expect(data.video_url).toBe(data.files[0]?.url);
    // the deck's PDF is in files only: slide_pdf_url is a slide deck's field
    expect(data).not.toHaveProperty("slide_pdf_url");
    expect((await callMinted(data.files[2]!.url)).headers.get("content-type")).toBe(
      "text/vtt; charset=utf-8",
    );
  });

  it("answers every wrong field with its own error_key, another key's note with 404", async () => {
    const { key } = await createKey();
    const other = await createKey("other");
    const mine = (await note(key)).note_id;
    const theirs = (await note(other.key)).note_id;
    const cases: [Record<string, string>, number, string][] = [
      [{}, 400, "missing_field"],
      [{ note_id: mine, template_id: "quiz-neon" }, 400, "unknown_template"],
      [{ note_id: mine, voice_id: "robot" }, 400, "unknown_voice"],
      [{ note_id: mine, language: "Klingon" }, 400, "unsupported_language"],
      [{ note_id: mine, community: "maybe" }, 400, "invalid_boolean"],
      [{ note_id: mine, voice_id: "vi-male" }, 400, "voice_language_mismatch"],
      [{ note_id: mine, language: "vi", voice_id: "en-male" }, 400, "voice_language_mismatch"],
      [{ note_id: theirs }, 404, "note_not_found"],
    ];
    for (const [fields, status, expected] of cases) {
      expect(
        await errorKey(await createForm("video-overview", key, fields), status),
        JSON.stringify(fields),
      ).toBe(expected);
    }
    const ok = await readTask(
      env,
      await created(
        await createForm("video-overview", key, {
          note_id: mine,
          template_id: "slide-forest",
          voice_id: "en-male",
        }),
      ),
    );
    expect(ok?.params).toMatchObject({ template_id: "slide-forest", voice_id: "en-male", language: null });
  });
});
