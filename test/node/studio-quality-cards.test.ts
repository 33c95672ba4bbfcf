/**
 * Studio quality (#32 point 9), flashcards and mind maps: each artifact rendered through the content
 * engine from one English and one Vietnamese study note, and every file opened the way its user opens
 * it — the .apkg's collection with sql.js (SQLite, as Anki reads it), the CSV with Python's csv module,
 * the OPML and SVG with Python's XML parser, the PNG decoded by ffprobe — checking what a person sees:
 * the note's own words, Vietnamese diacritics exactly as written (NFC), and sizes in range.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import JSZip from "jszip";
import initSqlJs from "sql.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MindMapNode } from "../../inference-node/content/mindmap/tree.ts";
import { StageSpeeds } from "../../inference-node/content/progress.ts";
import {
  type ContentDeps,
  type ContentResult,
  runContentTask,
} from "../../inference-node/content/run-content-task.ts";
import { EspeakSynthesizer } from "../../inference-node/content/tts/espeak.ts";
import type { NoteSnapshot } from "../../protocol/content.ts";
import { probe, recordingContext } from "./content-helpers.ts";
import { HOI_AN_NOTE_VI, PHOTOSYNTHESIS_NOTE_EN } from "./fixtures/studio-notes-cards.ts";

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "studio-quality-cards-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const deps = (): ContentDeps => ({
  synthesizer: new EspeakSynthesizer(),
  tools: { ffmpeg: "ffmpeg" },
  llm: null,
  speeds: new StageSpeeds(),
  tmpRoot: root,
});

const NOTES: [string, NoteSnapshot, string[]][] = [
  ["English", PHOTOSYNTHESIS_NOTE_EN, ["Photosynthesis", "Chlorophyll", "Inputs and outputs"]],
  ["Vietnamese", HOI_AN_NOTE_VI, ["Lịch sử", "Kiến trúc", "Đời sống", "Chùa Cầu"]],
];

const fileOf = (result: ContentResult, role: string) => {
  const file = result.files.find((f) => f.role === role);
  if (!file) throw new Error(`no ${role} file`);
  return file.path;
};

/** Runs a Python snippet on `path` (sys.argv[1]) and parses what it prints as JSON. */
function python<T>(script: string, path: string): T {
  return JSON.parse(execFileSync("python3", ["-c", script, path]).toString("utf8")) as T;
}

const sqlJsDist = dirname(createRequire(import.meta.url).resolve("sql.js"));

/** The notes of an .apkg's collection, read with sql.js as Anki reads its SQLite file. */
async function apkgNotes(path: string) {
  const zip = await JSZip.loadAsync(await readFile(path));
  const media = JSON.parse((await zip.file("media")?.async("string")) ?? "null") as unknown;
  const SQL = await initSqlJs({ locateFile: (file: string) => join(sqlJsDist, file) });
  const db = new SQL.Database(await zip.file("collection.anki2")!.async("uint8array"));
  try {
    const tables = db.exec("select name from sqlite_master where type = 'table' order by name")[0]?.values;
    const rows = db.exec("select flds, tags from notes order by id")[0]?.values ?? [];
    const cards = db.exec("select count(*) from cards")[0]?.values[0]?.[0];
    const decks = JSON.parse(String(db.exec("select decks from col")[0]?.values[0]?.[0])) as Record<
      string,
      { name: string }
    >;
    return {
      media,
      tables: tables?.map((t) => t[0]),
      notes: rows.map(([flds, tags]) => ({ fields: String(flds).split("\x1f"), tags: String(tags).trim() })),
      cards,
      deckNames: Object.values(decks).map((deck) => deck.name),
    };
  } finally {
    db.close();
  }
}

const unescapeHtml = (text: string) =>
  text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"').replaceAll("&amp;", "&");

const labelsOf = (node: MindMapNode): string[] => [node.label, ...node.children.flatMap(labelsOf)];

describe.each(NOTES)("studio quality: flashcards and mind map from the %s note", (_name, note, words) => {
  it("flashcards: the note's own sentences in JSON, CSV and an Anki deck that opens with every card", async () => {
    const result = await runContentTask(
      { kind: "flashcards", params: { note, count: 12, difficulty: "medium" } },
      deps(),
      recordingContext().ctx,
    );
    try {
      expect(result.files.map((f) => f.role)).toEqual(["json", "csv", "apkg"]);
      const set = JSON.parse(await readFile(fileOf(result, "json"), "utf8")) as {
        title: string;
        cards: { front: string; back: string; source_sentence: string; tags: string[] }[];
      };
      expect(set.title).toBe(note.title);
      expect(set.cards.length).toBe(result.data.card_count);
      // Twelve asked; the note has enough sentences of 5 words or more for at least eight.
      expect(set.cards.length).toBeGreaterThanOrEqual(8);
      expect(set.cards.length).toBeLessThanOrEqual(12);
      for (const card of set.cards) {
        // Exactly the note's words (a decomposed or dropped diacritic would not be found).
        expect(note.content).toContain(card.source_sentence);
        expect(note.content).toContain(card.back);
        expect(card.front.normalize("NFC")).toBe(card.front);
        expect(card.front).toContain("_____");
      }

      const rows = python<string[][]>(
        "import csv,json,sys; print(json.dumps(list(csv.reader(open(sys.argv[1], encoding='utf-8-sig', newline='')))))",
        fileOf(result, "csv"),
      );
      expect(rows[0]).toEqual(["front", "back", "source_sentence", "tags"]);
      expect(rows.slice(1)).toEqual(
        set.cards.map((card) => [card.front, card.back, card.source_sentence, card.tags.join(" ")]),
      );

      const deck = await apkgNotes(fileOf(result, "apkg"));
      expect(deck.media).toEqual({});
      expect(deck.tables).toEqual(["cards", "col", "graves", "notes", "revlog"]);
      expect(deck.cards).toBe(set.cards.length);
      expect(deck.deckNames).toContain(note.title);
      expect(deck.notes.map((n) => n.fields.map(unescapeHtml))).toEqual(
        set.cards.map((c) => [c.front, c.back]),
      );
    } finally {
      await result.cleanup();
    }
  });

  it("mind map: the note's headings and names in JSON, OPML, Markdown and SVG, and a PNG of the SVG's size", async () => {
    const result = await runContentTask(
      { kind: "mindmap", params: { note } },
      deps(),
      recordingContext().ctx,
    );
    try {
      expect(result.files.map((f) => f.role)).toEqual(["json", "opml", "markdown", "svg", "png"]);
      const map = JSON.parse(await readFile(fileOf(result, "json"), "utf8")) as { root: MindMapNode };
      const labels = labelsOf(map.root);
      expect(map.root.label).toBe(note.title);
      expect(result.data).toMatchObject({ title: note.title, source: "outline", node_count: labels.length });
      for (const label of labels) expect(label.normalize("NFC")).toBe(label);
      for (const word of words)
        expect(
          labels.some((label) => label.includes(word)),
          word,
        ).toBe(true);

      const outline = python<string[]>(
        "import json,sys,xml.etree.ElementTree as ET; print(json.dumps([o.get('text') for o in ET.parse(sys.argv[1]).iter('outline')]))",
        fileOf(result, "opml"),
      );
      expect(outline).toEqual(labels);

      const markdown = await readFile(fileOf(result, "markdown"), "utf8");
      expect(markdown.startsWith(`# ${note.title}\n`)).toBe(true);
      for (const branch of map.root.children) expect(markdown).toContain(`\n- ${branch.label}`);

      const svg = python<{ width: string; height: string; texts: string[] }>(
        "import json,sys,xml.etree.ElementTree as ET; r=ET.parse(sys.argv[1]).getroot(); n='{http://www.w3.org/2000/svg}';" +
          " print(json.dumps({'width': r.get('width'), 'height': r.get('height'), 'texts': [t.text for t in r.iter(n+'text')]}))",
        fileOf(result, "svg"),
      );
      expect(svg.texts).toEqual(labels);

      const [png] = probe(fileOf(result, "png")).streams;
      if (!png?.width || !png.height) throw new Error("the PNG has no picture");
      expect(png.codec_name).toBe("png");
      expect([png.width, png.height]).toEqual([Number(svg.width), Number(svg.height)]);
      // Wide enough for four columns of labels, and no taller than 7 × 7 × 7 rows could make it.
      expect(png.width).toBeGreaterThanOrEqual(600);
      expect(png.width).toBeLessThanOrEqual(4000);
      expect(png.height).toBeGreaterThanOrEqual(200);
      expect(png.height).toBeLessThanOrEqual(12_000);
    } finally {
      await result.cleanup();
    }
  });
});
