/**
 * Note translation through a real translation backend client (the node's LibreTranslate client
 * against a local LibreTranslate-compatible server): the Markdown structure survives line for line,
 * each sentence is one request, code and links are kept, and every failure has its error_key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { translateNote } from "../../inference-node/content/note-translation/translate-note.ts";
import type { TranslateFn } from "../../inference-node/content/script.ts";
import { createTranslator } from "../../inference-node/translate/config.ts";
import { ENGLISH_NOTE } from "./content-helpers.ts";
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
