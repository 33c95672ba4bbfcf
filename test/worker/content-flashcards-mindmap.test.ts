import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { readTask } from "../../platform/task-store.ts";
import type { ContentOutputRole } from "../../protocol/content.ts";
import { created, createForm, createNote, errorKey, leaseTask } from "./content-helpers.ts";
import { bearer, call, createKey, resetDispatcher } from "./helpers.ts";
import { bytes, callMinted } from "./ingest-helpers.ts";
import { TestNode } from "./node-client.ts";

/**
 * POST /v2/create/flashcards and /v2/create/mindmap in workerd: the form becomes the kind's params,
 * a node leases the task as that kind, uploads its files and completes; the poll shows the result's
 * fields and every file, linked. Every wrong field is its own 400 error_key, and no task is made.
 */

beforeEach(resetDispatcher);

const VI_CONTENT =
  "Sông Mê Kông chảy qua sáu quốc gia. Đồng bằng sông Cửu Long là vựa lúa lớn nhất Việt Nam.";

const note = (key: string, content = VI_CONTENT) => createNote(key, content);

async function poll(taskId: string, key: string) {
  const response = await call(`/v1/create/tasks/${taskId}/result`, { headers: bearer(key) });
  return (await response.json()) as { status: string; data?: Record<string, unknown> };
}

/** Uploads one file per role as a node does, and returns the outputs to complete with. */
async function upload(node: TestNode, leaseId: string, files: [string, ContentOutputRole, string][]) {
  const outputs = [];
  for (const [index, [name, role, type]] of files.entries()) {
    const response = await node.uploadOutput(leaseId, name, bytes(500 + index, index + 1), type);
    expect(response.status).toBe(200);
    outputs.push({ role, ...((await response.json()) as object) });
  }
  return outputs;
}

describe("POST /v2/create/flashcards", () => {
  it("queues the note's cards with its defaults, or count, difficulty and language as asked", async () => {
    const { key } = await createKey();
    const source = await note(key);
    const plain = await readTask(
      env,
      await created(await createForm("flashcards", key, { note_id: source.note_id })),
    );
    expect(plain).toMatchObject({
      kind: "flashcards",
      params: {
        note: { note_id: source.note_id, content: VI_CONTENT, language: "vi" },
        count: 10,
        difficulty: "medium",
        language: null,
        community: false,
      },
    });
    const asked = await readTask(
      env,
      await created(
        await createForm("flashcards", key, {
          note_id: source.note_id,
          count: "50",
          difficulty: "hard",
          language: "en",
        }),
      ),
    );
    expect(asked?.params).toMatchObject({ count: 50, difficulty: "hard", language: "en" });
  });

  it("is leased as flashcards and polls SUCCESS with the set's fields and its JSON, CSV and .apkg", async () => {
    const { key } = await createKey();
    const source = await note(key);
    const taskId = await created(
      await createForm("flashcards", key, { note_id: source.note_id, count: "2", difficulty: "easy" }),
    );
    const node = new TestNode();
    const lease = await leaseTask(node, taskId);
    expect(lease).toMatchObject({ kind: "flashcards", params: { count: 2, difficulty: "easy" } });
    await node.heartbeat(lease.lease_id, 30, { step: "building_cards", estimated_time_sec: 1 });
    expect(await poll(taskId, key)).toMatchObject({ status: "PROCESSING", step: "building_cards" });

    const outputs = await upload(node, lease.lease_id, [
      ["Sông Mê Kông.json", "json", "application/json; charset=utf-8"],
      ["Sông Mê Kông.csv", "csv", "text/csv; charset=utf-8"],
      ["Sông Mê Kông.apkg", "apkg", "application/octet-stream"],
    ]);
    const cards = [
      {
        front: "Đồng bằng sông Cửu Long",
        back: "Đồng bằng sông Cửu Long là vựa lúa lớn nhất Việt Nam.",
        source_sentence: "Đồng bằng sông Cửu Long là vựa lúa lớn nhất Việt Nam.",
        tags: ["easy", "definition"],
      },
    ];
    const result = {
      note_id: source.note_id,
      title: "Sông Mê Kông",
      language: "vi",
      difficulty: "easy",
      card_count: 1,
      text_source: "extractive",
      cards,
      outputs,
    };
    expect((await node.complete(lease.lease_id, result, "flashcards")).status).toBe(204);

    const { status, data } = await poll(taskId, key);
    expect(status).toBe("SUCCESS");
    expect(data).toMatchObject({
      type: "flashcards",
      note_id: source.note_id,
      title: "Sông Mê Kông",
      language: "vi",
      difficulty: "easy",
      card_count: 1,
      text_source: "extractive",
      cards,
    });
    // Flashcards have no spec link field: every file is in `files`, and no *_url besides.
    expect(Object.keys(data ?? {}).filter((field) => field.endsWith("_url"))).toEqual([]);
    const files = data?.files as { role: string; content_type: string; bytes: number; url: string }[];
    expect(files.map((file) => [file.role, file.bytes])).toEqual([
      ["json", 500],
      ["csv", 501],
      ["apkg", 502],
    ]);
    const apkg = await callMinted(files[2]?.url ?? "");
    expect(apkg.status).toBe(200);
    expect(new Uint8Array(await apkg.arrayBuffer())).toEqual(bytes(502, 3));
  });
});

describe("POST /v2/create/mindmap", () => {
  it("is leased as mindmap with its params and polls SUCCESS with the map's fields and its five files", async () => {
    const { key } = await createKey();
    const source = await note(key);
    const taskId = await created(
      await createForm("mindmap", key, { note_id: source.note_id, language: "vi" }),
    );
    expect((await readTask(env, taskId))?.params).toMatchObject({
      note: { note_id: source.note_id },
      language: "vi",
      community: false,
    });
    const node = new TestNode();
    const lease = await leaseTask(node, taskId);
    expect(lease).toMatchObject({ kind: "mindmap", params: { language: "vi" } });
    await node.heartbeat(lease.lease_id, 50, { step: "building_mindmap" });
    expect(await poll(taskId, key)).toMatchObject({ status: "PROCESSING", step: "building_mindmap" });

    const roles: [string, ContentOutputRole, string][] = [
      ["map.json", "json", "application/json"],
      ["map.opml", "opml", "text/x-opml; charset=utf-8"],
      ["map.md", "markdown", "text/markdown; charset=utf-8"],
      ["map.svg", "svg", "image/svg+xml"],
      ["map.png", "png", "image/png"],
    ];
    const outputs = await upload(node, lease.lease_id, roles);
    const root = { label: "Sông Mê Kông", children: [{ label: "Đồng bằng sông Cửu Long", children: [] }] };
    const result = {
      note_id: source.note_id,
      title: "Sông Mê Kông",
      language: "vi",
      source: "key_phrases",
      text_source: "extractive",
      node_count: 2,
      root,
      outputs,
    };
    expect((await node.complete(lease.lease_id, result, "mindmap")).status).toBe(204);

    const { status, data } = await poll(taskId, key);
    expect(status).toBe("SUCCESS");
    expect(data).toMatchObject({
      type: "mindmap",
      note_id: source.note_id,
      title: "Sông Mê Kông",
      language: "vi",
      source: "key_phrases",
      node_count: 2,
      root,
    });
    const files = data?.files as { role: string; content_type: string; url: string }[];
    // Stored by their bare type; GET /media adds the charset back to the text ones.
    expect(files.map((file) => [file.role, file.content_type])).toEqual(
      roles.map(([, role, type]) => [role, type.split(";")[0]]),
    );
    const png = await callMinted(files[4]?.url ?? "");
    expect(png.headers.get("content-type")).toBe("image/png");
  });
});

describe("create form errors", () => {
  it("answers every wrong field of both forms with its own error_key and makes no task", async () => {
    const { id, key } = await createKey();
    const other = await createKey("other");
    const mine = (await note(key)).note_id;
    const theirs = (await note(other.key)).note_id;
    const cases: [string, Record<string, string>, number, string][] = [
      ["flashcards", {}, 400, "missing_field"],
      ["flashcards", { note_id: theirs }, 404, "note_not_found"],
      ["flashcards", { note_id: mine, count: "0" }, 400, "invalid_count"],
      ["flashcards", { note_id: mine, count: "51" }, 400, "invalid_count"],
      ["flashcards", { note_id: mine, count: "2.5" }, 400, "invalid_count"],
      ["flashcards", { note_id: mine, count: "ten" }, 400, "invalid_count"],
      ["flashcards", { note_id: mine, difficulty: "expert" }, 400, "invalid_difficulty"],
      ["flashcards", { note_id: mine, difficulty: "Easy" }, 400, "invalid_difficulty"],
      ["flashcards", { note_id: mine, language: "fr" }, 400, "unsupported_language"],
      ["flashcards", { note_id: mine, community: "maybe" }, 400, "invalid_boolean"],
      ["mindmap", {}, 400, "missing_field"],
      ["mindmap", { note_id: theirs }, 404, "note_not_found"],
      ["mindmap", { note_id: mine, language: "Klingon" }, 400, "unsupported_language"],
      ["mindmap", { note_id: mine, community: "yes" }, 400, "invalid_boolean"],
    ];
    for (const [path, fields, status, expected] of cases) {
      expect(
        await errorKey(await createForm(path, key, fields), status),
        `${path} ${JSON.stringify(fields)}`,
      ).toBe(expected);
    }
    const { results } = await env.DB.prepare("SELECT COUNT(*) AS n FROM jobs WHERE owner_key_id = ?")
      .bind(id)
      .all();
    expect(results[0]).toEqual({ n: 0 });
  });

  it("reaches another owner's note only when it is published and the form says community=true", async () => {
    const owner = await createKey("owner");
    const { key } = await createKey();
    const published = (await note(owner.key)).note_id;
    const publish = await call(`/v1/notes/${published}/publish`, {
      method: "POST",
      headers: { ...bearer(owner.key), "content-type": "application/json" },
      body: "{}",
    });
    expect(publish.status).toBe(200);
    for (const path of ["flashcards", "mindmap"]) {
      expect(await errorKey(await createForm(path, key, { note_id: published }), 404)).toBe("note_not_found");
      const taskId = await created(await createForm(path, key, { note_id: published, community: "true" }));
      expect((await readTask(env, taskId))?.params).toMatchObject({ community: true });
    }
  });
});

describe("the artifacts' files on /media", () => {
  it("stores the study files' types, refuses page types, serves an SVG that cannot run script and XML only as a download", async () => {
    const { key } = await createKey();
    const source = await note(key);
    const taskId = await created(await createForm("mindmap", key, { note_id: source.note_id }));
    const node = new TestNode();
    const lease = await leaseTask(node, taskId);
    const put = (name: string, body: string, type: string) =>
      node.uploadOutput(lease.lease_id, name, new TextEncoder().encode(body), type);

    for (const [name, type] of [
      ["a.json", "application/json; charset=utf-8"],
      ["a.csv", "text/csv; charset=utf-8"],
      ["a.md", "text/markdown; charset=utf-8"],
      ["a.opml", "text/x-opml; charset=utf-8"],
      ["a.png", "image/png"],
      ["a.apkg", "application/octet-stream"],
    ]) {
      expect((await put(name ?? "", "Sông Mê Kông", type ?? "")).status, type).toBe(200);
    }
    for (const type of ["text/html", "application/xhtml+xml", "text/xml", "image/svg+xml+x"]) {
      expect((await put("page", "<html></html>", type)).status, type).toBe(400);
    }

    const hostile = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>';
    const svg = await put("map.svg", hostile, "image/svg+xml");
    expect(svg.status).toBe(200);
    const { object_key } = (await svg.json()) as { object_key: string };
    for (const disposition of ["", "?disposition=inline"]) {
      const served = await call(`/media/${object_key}${disposition}`);
      expect(served.headers.get("content-type")).toBe("image/svg+xml");
      expect(served.headers.get("x-content-type-options")).toBe("nosniff");
      // Opened as a page, the SVG is a sandboxed document without script.
      const policy = served.headers.get("content-security-policy") ?? "";
      expect(policy).toContain("sandbox");
      expect(policy).toContain("default-src 'none'");
      expect(policy).not.toMatch(/script-src/);
    }

    // Moodle's quiz XML is stored, but always downloads, sandboxed, even when asked inline
    const xml = (await (await put("quiz.xml", "<quiz/>", "application/xml")).json()) as {
      object_key: string;
    };
    const servedXml = await call(`/media/${xml.object_key}?disposition=inline`);
    expect(servedXml.headers.get("content-disposition")).toMatch(/^attachment/);
    expect(servedXml.headers.get("content-security-policy")).toContain("sandbox");

    const markdown = (await (await put("map.md", "# Sông", "text/markdown")).json()) as {
      object_key: string;
    };
    const served = await call(`/media/${markdown.object_key}`);
    expect(served.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(await served.text()).toBe("# Sông");
  });
});
