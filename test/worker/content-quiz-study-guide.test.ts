import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { readTask } from "../../platform/task-store.ts";
import type { Lease } from "../../protocol/node.ts";
import { created, createForm, createNote, leaseTask } from "./content-helpers.ts";
import { bearer, call, createKey, resetDispatcher } from "./helpers.ts";
import { callMinted } from "./ingest-helpers.ts";
import { TestNode } from "./node-client.ts";

/**
 * POST /v2/create/quiz and /v2/create/study-guide in workerd: the form's fields become the task's
 * params (every wrong one its own error_key), a node leases the kind, uploads its files and completes,
 * and the poll's SUCCESS carries the result fields and every file in `files`, each served by its link.
 */

beforeEach(resetDispatcher);

const EN_CONTENT =
  "The Mekong flows through six countries. It feeds sixty million people. Its delta lies in Vietnam.";

const note = (key: string, content = EN_CONTENT) => createNote(key, content);

async function poll(taskId: string, key: string): Promise<Record<string, unknown>> {
  const response = await call(`/v1/create/tasks/${taskId}/result`, { headers: bearer(key) });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

/** Uploads each file as a node does and returns the completion's outputs. */
async function upload(node: TestNode, lease: Lease, files: [string, string, string, string][]) {
  const outputs = [];
  for (const [name, role, type, text] of files) {
    const response = await node.uploadOutput(lease.lease_id, name, new TextEncoder().encode(text), type);
    expect(response.status, await response.clone().text()).toBe(200);
    outputs.push({ role, ...((await response.json()) as object) });
  }
  return outputs;
}

interface FileLink {
  role: string;
  content_type: string;
  bytes: number;
  url: string;
}

describe("POST /v2/create/quiz", () => {
  it("queues a quiz with count, difficulty and language; completes with its four files listed and served", async () => {
    const { key } = await createKey();
    const source = await note(key);
    const defaults = await readTask(
      env,
      await created(await createForm("quiz", key, { note_id: source.note_id })),
    );
    expect(defaults?.params).toMatchObject({ count: 5, difficulty: "medium", language: null });

    const taskId = await created(
      await createForm("quiz", key, {
        note_id: source.note_id,
        count: "12",
        difficulty: "hard",
        language: "vi",
      }),
    );
    const node = new TestNode();
    const lease = await leaseTask(node, taskId);
    expect(lease.kind).toBe("quiz");
    expect(lease.params).toMatchObject({
      note: { note_id: source.note_id, content: EN_CONTENT, language: "en" },
      count: 12,
      difficulty: "hard",
      language: "vi",
    });
    const gift = "::Sông 1:: Sông Mê Kông chảy qua _____ nước. {\n=sáu\n~ba\n~bảy\n~tám\n}\n";
    const outputs = await upload(node, lease, [
      ["Sông.json", "json", "application/json", '{"format":"voxedge.quiz"}'],
      ["Sông.xml", "moodle_xml", "application/xml", '<?xml version="1.0"?><quiz/>'],
      ["Sông.gift", "gift", "text/plain", gift],
      ["Sông.pdf", "pdf", "application/pdf", "%PDF-1.7 sheet"],
    ]);
    const questions = [{ question: "Q?", options: ["a", "b", "c", "d"], answer_index: 0, explanation: "a" }];
    const done = await node.complete(
      lease.lease_id,
      {
        note_id: source.note_id,
        title: "Sông",
        language: "vi",
        difficulty: "hard",
        question_count: 1,
        text_source: "extractive",
        questions,
        outputs,
      },
      "quiz",
    );
    expect(done.status, await done.clone().text()).toBe(204);

    const body = await poll(taskId, key);
    expect(body).toMatchObject({
      status: "SUCCESS",
      data: {
        type: "quiz",
        note_id: source.note_id,
        title: "Sông",
        language: "vi",
        difficulty: "hard",
        question_count: 1,
        text_source: "extractive",
        questions,
      },
    });
    const data = body.data as Record<string, unknown> & { files: FileLink[] };
    // A quiz's PDF is its question sheet, not a deck: no spec link field is filled.
    for (const field of ["video_url", "audio_url", "slide_url", "slide_pdf_url"]) {
      expect(data).not.toHaveProperty(field);
    }
    expect(data.files.map((f) => [f.role, f.content_type])).toEqual([
      ["json", "application/json"],
      ["moodle_xml", "application/xml"],
      ["gift", "text/plain"],
      ["pdf", "application/pdf"],
    ]);
    const giftFile = data.files.find((f) => f.role === "gift") as FileLink;
    expect(giftFile.bytes).toBe(new TextEncoder().encode(gift).byteLength);
    expect(await (await callMinted(giftFile.url)).text()).toBe(gift);
    // The Moodle XML is served as XML but always downloads: shown in place it could be XHTML of our origin.
    const xml = data.files.find((f) => f.role === "moodle_xml") as FileLink;
    const inline = await callMinted(`${xml.url}&disposition=inline`);
    expect(inline.headers.get("content-type")).toBe("application/xml; charset=utf-8");
    expect(inline.headers.get("content-security-policy")).toContain("sandbox");
    expect(inline.headers.get("content-disposition")).toMatch(/^attachment;/);
    const json = data.files.find((f) => f.role === "json") as FileLink;
    expect((await callMinted(`${json.url}&disposition=inline`)).headers.get("content-disposition")).toMatch(
      /^inline;/,
    );
  });

  it("answers each wrong field with its error_key, and another key's note with 404", async () => {
    const { id, key } = await createKey();
    const other = await createKey("other");
    const mine = (await note(key)).note_id;
    const theirs = (await note(other.key)).note_id;
    const cases: [Record<string, string>, number, string][] = [
      [{}, 400, "missing_field"],
      [{ note_id: theirs }, 404, "note_not_found"],
      [{ note_id: mine, count: "0" }, 400, "invalid_count"],
      [{ note_id: mine, count: "21" }, 400, "invalid_count"],
      [{ note_id: mine, count: "2.5" }, 400, "invalid_count"],
      [{ note_id: mine, count: "five" }, 400, "invalid_count"],
      [{ note_id: mine, difficulty: "extreme" }, 400, "invalid_difficulty"],
      [{ note_id: mine, difficulty: "HARD" }, 400, "invalid_difficulty"],
      [{ note_id: mine, language: "fr" }, 400, "unsupported_language"],
      [{ note_id: mine, community: "maybe" }, 400, "invalid_boolean"],
      [{ note_id: mine, webhook_url: "ftp://example.com/hook" }, 400, "invalid_webhook"],
    ];
    for (const [fields, status, errorKey] of cases) {
      const response = await createForm("quiz", key, fields);
      const body = (await response.json()) as { error_key: string };
      expect([response.status, body.error_key], JSON.stringify(fields)).toEqual([status, errorKey]);
    }
    const { results } = await env.DB.prepare("SELECT COUNT(*) AS n FROM jobs WHERE owner_key_id = ?")
      .bind(id)
      .all();
    expect(results[0]).toEqual({ n: 0 });
  });
});

describe("POST /v2/create/study-guide", () => {
  it("queues a guide in the asked language; completes with its Markdown and PDF and the guide's size", async () => {
    const { key } = await createKey();
    const source = await note(key);
    const taskId = await created(
      await createForm("study-guide", key, { note_id: source.note_id, language: "Vietnamese" }),
    );
    const node = new TestNode();
    const lease = await leaseTask(node, taskId);
    expect(lease.kind).toBe("study_guide");
    expect(lease.params).toEqual({
      note: {
        note_id: source.note_id,
        title: source.title,
        content: EN_CONTENT,
        language: "en",
      },
      language: "vi",
    });
    const markdown = "# Sông Mê Kông\n\n## Tóm tắt\n\nSông chảy qua sáu nước.\n";
    const outputs = await upload(node, lease, [
      ["guide.md", "markdown", "text/markdown", markdown],
      ["guide.pdf", "pdf", "application/pdf", "%PDF-1.7 guide"],
    ]);
    const result = {
      note_id: source.note_id,
      title: "Sông Mê Kông",
      language: "vi",
      text_source: "extractive",
      term_count: 6,
      question_count: 0,
      has_timeline: false,
      outputs,
    };
    expect((await node.complete(lease.lease_id, result, "study_guide")).status).toBe(204);
    const body = await poll(taskId, key);
    const { outputs: _, ...fields } = result;
    expect(body).toMatchObject({ status: "SUCCESS", data: { type: "study_guide", ...fields } });
    const data = body.data as Record<string, unknown> & { files: FileLink[] };
    expect(data).not.toHaveProperty("slide_pdf_url");
    expect(data.files.map((f) => f.role)).toEqual(["markdown", "pdf"]);
    const served = await callMinted((data.files[0] as FileLink).url);
    expect(served.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(await served.text()).toBe(markdown);
  });

  it("refuses a completion without the guide's size fields", async () => {
    const { key } = await createKey();
    const taskId = await created(
      await createForm("study-guide", key, { note_id: (await note(key)).note_id }),
    );
    const node = new TestNode();
    const lease = await leaseTask(node, taskId);
    const outputs = await upload(node, lease, [["g.md", "markdown", "text/markdown", "# G\n"]]);
    const bare = { note_id: "n", title: "G", language: "en", outputs };
    expect((await node.complete(lease.lease_id, bare, "study_guide")).status).toBe(422);
    expect(((await poll(taskId, key)) as { status: string }).status).toBe("PROCESSING");
  });

  it("answers each wrong field with its error_key, and another key's note with 404", async () => {
    const { key } = await createKey();
    const other = await createKey("other");
    const mine = (await note(key)).note_id;
    const theirs = (await note(other.key)).note_id;
    const cases: [Record<string, string>, number, string][] = [
      [{}, 400, "missing_field"],
      [{ note_id: theirs }, 404, "note_not_found"],
      [{ note_id: theirs, community: "true" }, 404, "note_not_found"],
      [{ note_id: mine, language: "Klingon" }, 400, "unsupported_language"],
      [{ note_id: mine, community: "2" }, 400, "invalid_boolean"],
    ];
    for (const [fields, status, errorKey] of cases) {
      const response = await createForm("study-guide", key, fields);
      const body = (await response.json()) as { error_key: string };
      expect([response.status, body.error_key], JSON.stringify(fields)).toEqual([status, errorKey]);
    }
  });
});
