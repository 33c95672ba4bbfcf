/**
 * Note translation through a real translation backend client (the node's LibreTranslate client
 * against a local LibreTranslate-compatible server): the Markdown structure survives line for line,
 * each sentence is one request, code and links are kept, and every failure has its error_key.
 */
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { translateNote } from "../../inference-node/content/note-translation/translate-note.ts";
import { StageSpeeds } from "../../inference-node/content/progress.ts";
import type { ContentDeps } from "../../inference-node/content/run-content-task.ts";
import { runContentTask } from "../../inference-node/content/run-content-task.ts";
import type { TranslateFn } from "../../inference-node/content/script.ts";
import { EspeakSynthesizer } from "../../inference-node/content/tts/espeak.ts";
import { renderTask } from "../../inference-node/pipeline/render-task.ts";
import { createTranslator } from "../../inference-node/translate/config.ts";
import type { WorkerClient } from "../../inference-node/worker-client.ts";
import { NoteTranslationCompletion } from "../../protocol/content.ts";
import type { LeaseOf } from "../../protocol/node.ts";
import { ENGLISH_NOTE, recordingContext } from "./content-helpers.ts";
import { type FakeServer, libreTranslateHandler, sendJson, startServer } from "./translate-fake-servers.ts";

let libre: FakeServer;
let broken: FakeServer;
const signal = new AbortController().signal;

beforeAll(async () => {
  libre = await startServer(libreTranslateHandler());
  broken = await startServer((_req, res) => sendJson(res, 500, { error: "engine down" }));
});
afterAll(async () => {
  await libre.close();
  await broken.close();
});

const through = (url: string): TranslateFn => {
  const translator = createTranslator({ backend: "libretranslate", url });
  if (!translator) throw new Error("no translator");
  return (text, from, to, s) => translator.translate(text, from, to, s);
};

const NOTE = {
  note_id: "n1",
  title: "River notes",
  language: "en",
  content: [
    "# The Mekong",
    "",
    "The Mekong is long. It crosses six countries.",
    "",
    "## Facts",
    "- Fish: more species than most rivers.",
    "  - Nested: the giant catfish.",
    "1. First, rice. Then, fish.",
    "> A quote stays a quote.",
    "- [ ] A task item.",
    "See `mekong.csv` and https://example.org/mekong for data.",
    "```",
    "code stays as written.",
    "```",
  ].join("\n"),
};

describe("note translation", () => {
  it("keeps the note's structure line for line and translates it sentence by sentence", async () => {
    libre.requests.length = 0;
    const out = await translateNote(NOTE, "vi", through(libre.url), signal);
    expect(out.language).toBe("vi");
    expect(out.title).toBe("<vi>River notes</vi>");
    const lines = out.content.split("\n");
    expect(lines).toHaveLength(NOTE.content.split("\n").length);
    expect(lines).toEqual([
      "# <vi>The Mekong</vi>",
      "",
      "<vi>The Mekong is long.</vi> <vi>It crosses six countries.</vi>",
      "",
      "## <vi>Facts</vi>",
      "- <vi>Fish: more species than most rivers.</vi>",
      "  - <vi>Nested: the giant catfish.</vi>",
      "1. <vi>First, rice.</vi> <vi>Then, fish.</vi>",
      "> <vi>A quote stays a quote.</vi>",
      "- [ ] <vi>A task item.</vi>",
      "<vi>See</vi> `mekong.csv` <vi>and</vi> https://example.org/mekong <vi>for data.</vi>",
      "```",
      "code stays as written.",
      "```",
    ]);
    // one request per sentence, never a whole note in one
    const sent = libre.requests
      .filter((r) => r.path === "/translate")
      .map((r) => (r.body as { q: string }).q);
    expect(sent).toHaveLength(out.sentences);
    expect(Math.max(...sent.map((q) => q.length))).toBeLessThan(60);
  });

  it("translates the fixture note from English into Vietnamese with every heading kept", async () => {
    const out = await translateNote(ENGLISH_NOTE, "vi", through(libre.url), signal);
    const headings = (text: string) => text.split("\n").filter((l) => l.startsWith("#")).length;
    expect(headings(out.content)).toBe(headings(ENGLISH_NOTE.content));
  });

  it("fails with an error_key for each way it cannot: same language, no backend, backend down, empty", async () => {
    await expect(translateNote(NOTE, "en", through(libre.url), signal)).rejects.toMatchObject({
      code: "invalid_params",
    });
    await expect(translateNote(NOTE, "vi", undefined, signal)).rejects.toMatchObject({
      code: "translation_unavailable",
    });
    await expect(translateNote(NOTE, "vi", through(broken.url), signal)).rejects.toMatchObject({
      code: "translation_failed",
    });
    await expect(
      translateNote({ ...NOTE, content: "  \n " }, "vi", through(libre.url), signal),
    ).rejects.toMatchObject({
      code: "note_too_short",
    });
  });
});

describe("note_translation tasks", () => {
  it("run through runContentTask: the translated note as Markdown and JSON, and a completion the Worker accepts", async () => {
    libre.requests.length = 0;
    const { reports, ctx } = recordingContext();
    const deps = {
      synthesizer: new EspeakSynthesizer(),
      tools: { ffmpeg: "ffmpeg" },
      llm: null,
      speeds: new StageSpeeds(),
      translate: through(libre.url),
    };
    const result = await runContentTask(
      { kind: "note_translation", params: { note: NOTE, language: "vi" } },
      deps,
      ctx,
    );
    try {
      expect(result.files.map((f) => [f.role, f.contentType])).toEqual([
        ["markdown", "text/markdown"],
        ["json", "application/json"],
      ]);
      const markdown = await readFile(result.files[0]?.path ?? "", "utf8");
      // the title as the heading, then the note line for line
      expect(markdown.split("\n").slice(0, 3)).toEqual([
        "# <vi>River notes</vi>",
        "",
        "# <vi>The Mekong</vi>",
      ]);
      expect(markdown).toContain("- [ ] <vi>A task item.</vi>");
      expect(markdown).toContain("```\ncode stays as written.\n```");
      const json = JSON.parse(await readFile(result.files[1]?.path ?? "", "utf8"));
      expect(json).toMatchObject({
        format: "voxedge.note_translation",
        version: 1,
        source_note_id: "n1",
        source_language: "en",
        language: "vi",
        title: "<vi>River notes</vi>",
        sentence_count: result.data.sentence_count,
      });
      expect(markdown).toContain(json.content);
      expect(result.data).toMatchObject({ note_id: "n1", language: "vi", title: "<vi>River notes</vi>" });
      expect(result.data.sentence_count).toBe(libre.requests.filter((r) => r.path === "/translate").length);
      // what renderTask sends once the files are uploaded parses as the kind's completion
      const completion = NoteTranslationCompletion.parse({
        ...result.data,
        outputs: result.files.map((f) => ({
          role: f.role,
          object_key: `outputs/t/${f.role}`,
          content_type: f.contentType,
          bytes: 1,
        })),
      });
      expect(completion.content).toBe(json.content);
      expect(reports.map((r) => r.step)).toContain("translating");
    } finally {
      await result.cleanup();
    }
  });

  it("fails translation_unavailable without a backend, invalid_params for the note's own language", async () => {
    const deps = {
      synthesizer: new EspeakSynthesizer(),
      tools: { ffmpeg: "ffmpeg" },
      llm: null,
      speeds: new StageSpeeds(),
    };
    await expect(
      runContentTask(
        { kind: "note_translation", params: { note: NOTE, language: "vi" } },
        deps,
        recordingContext().ctx,
      ),
    ).rejects.toMatchObject({ code: "translation_unavailable" });
    await expect(
      runContentTask(
        { kind: "note_translation", params: { note: NOTE, language: "en" } },
        { ...deps, translate: through(libre.url) },
        recordingContext().ctx,
      ),
    ).rejects.toMatchObject({ code: "invalid_params" });
  });

  it("run through renderTask: each translated sentence is a sign of life for the node's stall limit", async () => {
    libre.requests.length = 0;
    const deps: ContentDeps = {
      synthesizer: new EspeakSynthesizer(),
      tools: { ffmpeg: "ffmpeg" },
      llm: null,
      speeds: new StageSpeeds(),
      translate: through(libre.url),
    };
    const uploaded: string[] = [];
    const client = {
      uploadOutput: async (_lease: string, name: string, _file: string, contentType: string) => {
        uploaded.push(name);
        return { object_key: `outputs/t/${name}`, content_type: contentType, bytes: 1 };
      },
    } as unknown as WorkerClient;
    let signsOfLife = 0;
    const lease = {
      lease_id: "lease-1",
      task_id: "t",
      kind: "note_translation",
      params: { note: NOTE, language: "vi" },
    } as unknown as LeaseOf<"note_translation">;
    const completion = await renderTask(
      lease,
      { content: deps, client },
      { signal, progress: () => undefined, partial: () => undefined, alive: () => signsOfLife++ },
    );
    expect(completion.kind).toBe("note_translation");
    expect(uploaded).toHaveLength(2);
    // a note of any length is translated inside one stage: every sentence holds off the stall limit
    expect(signsOfLife).toBe(libre.requests.filter((r) => r.path === "/translate").length);
    expect(signsOfLife).toBeGreaterThan(10);
  });
});
