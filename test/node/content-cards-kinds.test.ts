/**
 * The flashcards and mindmap task kinds in the content engine (runContentTask, as a leased task runs
 * them): their stages and progress, the note translated first when another language is asked (the
 * node's LibreTranslate client against a local LibreTranslate-compatible server), the chat-model path
 * (a local chat-completions server on 127.0.0.1), and the result data the Worker keeps. The files
 * themselves are opened in studio-quality-cards.test.ts and the builders' own tests.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  MINDMAP_DATA_ROOT_MAX_BYTES,
  mindMapData,
} from "../../inference-node/content/mindmap/mindmap-stages.ts";
import type { MindMapNode } from "../../inference-node/content/mindmap/tree.ts";
import { StageSpeeds } from "../../inference-node/content/progress.ts";
import { type ContentDeps, runContentTask } from "../../inference-node/content/run-content-task.ts";
import { EspeakSynthesizer } from "../../inference-node/content/tts/espeak.ts";
import { createTranslator } from "../../inference-node/translate/config.ts";
import { ENGLISH_NOTE, recordingContext, VIETNAMESE_NOTE } from "./content-helpers.ts";
import { type FakeServer, libreTranslateHandler, sendJson, startServer } from "./translate-fake-servers.ts";

let root: string;
let libre: FakeServer;
let chat: FakeServer;
let answer = "";

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "content-cards-kinds-"));
  libre = await startServer(libreTranslateHandler());
  chat = await startServer((req, res) => {
    if (req.path !== "/v1/chat/completions") return sendJson(res, 404, {});
    sendJson(res, 200, {
      id: "chatcmpl-1",
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content: answer }, finish_reason: "stop" }],
    });
  });
});
afterAll(async () => {
  await Promise.all([libre.close(), chat.close(), rm(root, { recursive: true, force: true })]);
});
beforeEach(() => {
  chat.requests.length = 0;
});

const deps = (extra: Partial<ContentDeps> = {}): ContentDeps => ({
  synthesizer: new EspeakSynthesizer(),
  tools: { ffmpeg: "ffmpeg" },
  llm: null,
  speeds: new StageSpeeds(),
  tmpRoot: root,
  ...extra,
});
const translator = () => {
  const libreTranslator = createTranslator({ backend: "libretranslate", url: libre.url });
  if (!libreTranslator) throw new Error("no LibreTranslate client");
  return {
    translate: (text: string, from: string, to: string, signal: AbortSignal) =>
      libreTranslator.translate(text, from, to, signal),
  };
};
const llm = () => ({ llm: { url: chat.url, model: "local-model" } });

/** The steps reported, each once, in order; progress never went back. */
function stepsOf(reports: { step: string; progress: number }[]): string[] {
  for (const [i, report] of reports.entries()) {
    expect(report.progress).toBeGreaterThanOrEqual(reports[i - 1]?.progress ?? 0);
  }
  return reports.map((r) => r.step).filter((step, i, all) => step !== all[i - 1]);
}

describe("the flashcards kind", () => {
  it("builds the note's cards in its own language: one building_cards stage, three files", async () => {
    const { reports, ctx } = recordingContext();
    const result = await runContentTask(
      { kind: "flashcards", params: { note: VIETNAMESE_NOTE, count: 4, difficulty: "easy" } },
      deps(),
      ctx,
    );
    try {
      expect(stepsOf(reports)).toEqual(["building_cards"]);
      expect(result.files.map((f) => [f.role, f.contentType])).toEqual([
        ["json", "application/json; charset=utf-8"],
        ["csv", "text/csv; charset=utf-8"],
        ["apkg", "application/octet-stream"],
      ]);
      expect(result.data).toMatchObject({
        note_id: VIETNAMESE_NOTE.note_id,
        title: "Sông Mê Kông",
        language: "vi",
        difficulty: "easy",
        text_source: "extractive",
      });
      expect(result.data.card_count).toBe((result.data.cards as unknown[]).length);
      expect(result.data.card_count).toBeGreaterThanOrEqual(2);
    } finally {
      await result.cleanup();
    }
  });

  it("translates the note first when another language is asked, and fails translation_unavailable without a translator", async () => {
    const params = { note: VIETNAMESE_NOTE, language: "en", count: 3 };
    await expect(
      runContentTask({ kind: "flashcards", params }, deps(), recordingContext().ctx),
    ).rejects.toMatchObject({ code: "translation_unavailable" });
    const { reports, ctx } = recordingContext();
    const result = await runContentTask({ kind: "flashcards", params }, deps(translator()), ctx);
    try {
      expect(stepsOf(reports)).toEqual(["translating", "building_cards"]);
      expect(result.data).toMatchObject({ language: "en", difficulty: "medium" });
      // The fake translator tags what it translated: the cards are made from the translated sentences.
      const cards = result.data.cards as { source_sentence: string }[];
      expect(cards.length).toBeGreaterThan(0);
      for (const card of cards) expect(card.source_sentence).toContain("<en>");
    } finally {
      await result.cleanup();
    }
  });

  it("has the chat model write the cards when the node has one", async () => {
    answer = JSON.stringify({
      cards: [
        { front: "Mekong length", back: "About 4,350 km", source_sentence: "", tags: [] },
        { front: "Giant catfish weight", back: "300 kg", source_sentence: "", tags: [] },
      ],
    });
    const { reports, ctx } = recordingContext();
    const result = await runContentTask(
      { kind: "flashcards", params: { note: ENGLISH_NOTE, count: 5, difficulty: "hard" } },
      deps(llm()),
      ctx,
    );
    try {
      expect(chat.requests).toHaveLength(1);
      expect(stepsOf(reports)).toEqual(["building_cards"]);
      expect(result.data).toMatchObject({ text_source: "llm", card_count: 2, difficulty: "hard" });
      const json = JSON.parse(await readFile(result.files[0]!.path, "utf8")) as {
        cards: { front: string }[];
      };
      expect(json.cards.map((c) => c.front)).toEqual(["Mekong length", "Giant catfish weight"]);
    } finally {
      await result.cleanup();
    }
  });

  it("refuses params outside the contract as invalid_params before any work", async () => {
    for (const params of [
      { note: ENGLISH_NOTE, count: 0 },
      { note: ENGLISH_NOTE, count: 51 },
      { note: ENGLISH_NOTE, difficulty: "expert" },
      { note: ENGLISH_NOTE, language: "fr" },
    ]) {
      await expect(
        runContentTask({ kind: "flashcards", params }, deps(), recordingContext().ctx),
      ).rejects.toMatchObject({ code: "invalid_params" });
    }
  });
});

describe("the mindmap kind", () => {
  it("draws the tree, then its pictures: building_mindmap, five files, the small tree in the data", async () => {
    const { reports, ctx } = recordingContext();
    const result = await runContentTask({ kind: "mindmap", params: { note: ENGLISH_NOTE } }, deps(), ctx);
    try {
      expect(stepsOf(reports)).toEqual(["building_mindmap"]);
      expect(result.files.map((f) => f.role)).toEqual(["json", "opml", "markdown", "svg", "png"]);
      const json = JSON.parse(await readFile(result.files[0]!.path, "utf8")) as { root: unknown };
      expect(result.data).toMatchObject({
        note_id: ENGLISH_NOTE.note_id,
        title: "The Mekong River",
        language: "en",
        source: "outline",
        text_source: "extractive",
        root: json.root,
      });
    } finally {
      await result.cleanup();
    }
  });

  it("translates first when asked, and lets the chat model name the branches", async () => {
    answer = JSON.stringify({
      branches: [
        { label: "Dòng chảy", children: [{ label: "Sáu quốc gia" }] },
        { label: "Đồng bằng", children: [] },
      ],
    });
    const { reports, ctx } = recordingContext();
    const result = await runContentTask(
      { kind: "mindmap", params: { note: ENGLISH_NOTE, language: "vi" } },
      deps({ ...translator(), ...llm() }),
      ctx,
    );
    try {
      expect(stepsOf(reports)).toEqual(["translating", "building_mindmap"]);
      const prompt = (chat.requests[0]?.body as { messages: { content: string }[] }).messages;
      expect(prompt[0]?.content).toContain("in Vietnamese");
      expect(prompt[1]?.content).toContain("<vi>");
      expect(result.data).toMatchObject({
        language: "vi",
        source: "llm",
        text_source: "llm",
        node_count: 4,
        root: {
          children: [
            { label: "Dòng chảy", children: [{ label: "Sáu quốc gia", children: [] }] },
            { label: "Đồng bằng", children: [] },
          ],
        },
      });
    } finally {
      await result.cleanup();
    }
  });

  it("keeps a big tree out of the result data (it is in mindmap.json), counting its nodes", () => {
    // Three levels of seven, as the bounds allow: 1 + 7 + 49 + 343 nodes.
    const node = (depth: number, i: number): MindMapNode => ({
      label: `A label of level ${depth}, number ${i}`,
      children: depth < 3 ? Array.from({ length: 7 }, (_, j) => node(depth + 1, j)) : [],
    });
    const big = node(0, 0);
    expect(JSON.stringify(big).length).toBeGreaterThan(MINDMAP_DATA_ROOT_MAX_BYTES);
    const data = mindMapData("n1", { title: "Root", language: "en", source: "outline", root: big });
    expect(data).toMatchObject({ note_id: "n1", node_count: 1 + 7 + 49 + 343 });
    expect(data).not.toHaveProperty("root");
  });
});
