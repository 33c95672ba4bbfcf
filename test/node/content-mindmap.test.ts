/**
 * The mind map of a note, node side: the tree (from headings and lists, from key phrases, from a
 * chat model on a real HTTP server on 127.0.0.1), its bounds, and every file looked at: OPML parsed
 * by Chromium's XML parser, the SVG's boxes read back from the file and its text measured by
 * Chromium as drawn, and the PNG decoded by ffmpeg.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContentError } from "../../inference-node/content/errors.ts";
import { llmConfigFromEnv } from "../../inference-node/content/llm.ts";
import { mindMapMarkdown, mindMapOpml } from "../../inference-node/content/mindmap/export.ts";
import { MINDMAP_FILE_TYPES, writeMindMapFiles } from "../../inference-node/content/mindmap/files.ts";
import { MINDMAP_LABEL_MAX_CHARS } from "../../inference-node/content/mindmap/labels.ts";
import { layoutMindMap } from "../../inference-node/content/mindmap/layout.ts";
import { llmMindMap } from "../../inference-node/content/mindmap/llm-tree.ts";
import { mindMapSvg } from "../../inference-node/content/mindmap/svg.ts";
import {
  boundTree,
  extractiveMindMap,
  MINDMAP_MAX_CHILDREN,
  MINDMAP_MAX_DEPTH,
  type MindMap,
  type MindMapNode,
} from "../../inference-node/content/mindmap/tree.ts";
import type { NoteSnapshot } from "../../protocol/content.ts";
import { launchChromium } from "../helpers/chromium.ts";
import { ENGLISH_NOTE, VIETNAMESE_NOTE } from "./content-helpers.ts";
import { type FakeServer, sendJson, startServer } from "./translate-fake-servers.ts";

const signal = new AbortController().signal;

/** The Vietnamese sample without its headings: a note with no structure of its own. */
const PLAIN_VIETNAMESE_NOTE: NoteSnapshot = {
  ...VIETNAMESE_NOTE,
  content: VIETNAMESE_NOTE.content.replace(/^# .*\n/gm, ""),
};

/** 12 sections of 10 long list items, the first two nested 5 deep: past every bound. */
const LONG_ITEM = (i: number) =>
  `Item ${i} describes a tributary that drains the highlands and feeds the delta every single monsoon season`;
const nestedItems = (depth: number): string =>
  Array.from({ length: 10 }, (_, i) =>
    [`${"  ".repeat(depth)}- ${LONG_ITEM(i)}`, depth < 4 && i < 2 ? nestedItems(depth + 1) : ""]
      .filter(Boolean)
      .join("\n"),
  ).join("\n");
const BIG_NOTE: NoteSnapshot = {
  note_id: "n-big",
  title: "A very long title ".repeat(10),
  language: "en",
  content: Array.from({ length: 12 }, (_, h) => `# Section ${h}\n${nestedItems(0)}`).join("\n"),
};

const labelsOf = (node: MindMapNode): string[] => [node.label, ...node.children.flatMap(labelsOf)];
const depthOf = (node: MindMapNode): number => 1 + Math.max(-1, ...node.children.map(depthOf));
const widestOf = (node: MindMapNode): number =>
  Math.max(node.children.length, ...node.children.map(widestOf));
/** A label as the note wrote it: the cut label without its ellipsis. */
const written = (label: string) => label.replace(/…$/, "");

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}
const overlap = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
const inside = (inner: Box, outer: Box, slack = 0) =>
  inner.x >= outer.x - slack &&
  inner.y >= outer.y - slack &&
  inner.x + inner.w <= outer.x + outer.w + slack &&
  inner.y + inner.h <= outer.y + outer.h + slack;
const overlappingPairs = (boxes: readonly Box[]) =>
  boxes.flatMap((a, i) => boxes.slice(i + 1).flatMap((b, j) => (overlap(a, b) ? [[i, i + 1 + j]] : [])));

/** The label boxes and the viewBox, read back from the SVG text. */
function svgBoxes(svg: string): { view: Box; boxes: Box[] } {
  const [x, y, w, h] = (/viewBox="([^"]+)"/.exec(svg)?.[1] ?? "").split(" ").map(Number);
  const boxes = [
    ...svg.matchAll(/<rect class="label-box" x="([^"]+)" y="([^"]+)" width="([^"]+)" height="([^"]+)"/g),
  ].map((m) => ({ x: Number(m[1]), y: Number(m[2]), w: Number(m[3]), h: Number(m[4]) }));
  return { view: { x: x ?? 0, y: y ?? 0, w: w ?? 0, h: h ?? 0 }, boxes };
}

describe("mind map tree", () => {
  it("follows an English note's headings: title, sections, their central sentences and key phrases", () => {
    const map = extractiveMindMap(ENGLISH_NOTE);
    expect(map).toMatchObject({ title: "The Mekong River", language: "en", source: "outline" });
    expect(map.root.label).toBe("The Mekong River");
    expect(map.root.children.map((c) => c.label)).toEqual(["Overview", "Ecology", "Threats"]);
    const overview = map.root.children[0] as MindMapNode;
    expect(overview.children[0]?.label).toBe("The Mekong is one of the longest rivers…");
    expect(labelsOf(overview)).toEqual(
      expect.arrayContaining(["4,350", "Tibetan Plateau", "South China Sea"]),
    );
    expect(depthOf(map.root)).toBe(3);
  });

  it("nests list items under their heading and by indentation", () => {
    const map = extractiveMindMap({
      note_id: "n-lists",
      title: "River life",
      language: "en",
      content: "# Animals\n- Fish\n  - Giant catfish\n  - Carp\n- Birds\n# Plants\n* Rice\n* Lotus",
    });
    expect(map.source).toBe("outline");
    expect(map.root).toEqual({
      label: "River life",
      children: [
        {
          label: "Animals",
          children: [
            {
              label: "Fish",
              children: [
                { label: "Giant catfish", children: [] },
                { label: "Carp", children: [] },
              ],
            },
            { label: "Birds", children: [] },
          ],
        },
        {
          label: "Plants",
          children: [
            { label: "Rice", children: [] },
            { label: "Lotus", children: [] },
          ],
        },
      ],
    });
  });

  it("builds a Vietnamese note without headings from its sentences and key phrases, diacritics exact", () => {
    const map = extractiveMindMap(PLAIN_VIETNAMESE_NOTE);
    expect(map).toMatchObject({ title: "Sông Mê Kông", language: "vi", source: "key_phrases" });
    expect(map.root.label).toBe("Sông Mê Kông");
    expect(map.root.children.length).toBeGreaterThanOrEqual(5);
    const labels = labelsOf(map.root);
    expect(labels).toEqual(expect.arrayContaining(["Cần Thơ", "An Giang", "Trung Quốc", "Việt Nam"]));
    // Every label is the note's own text, letter for letter (NFC, as written).
    for (const label of labels) expect(PLAIN_VIETNAMESE_NOTE.content + map.title).toContain(written(label));
  });

  it("does not repeat the root as a branch when the title is the note's first sentence", () => {
    // POST /v1/notes derives an untitled note's title from its first sentence, which is also the
    // most central one: under npm start the map showed that sentence twice, as root and first branch.
    const map = extractiveMindMap({
      note_id: "n-untitled",
      title: "The Mekong flows through six countries",
      language: "en",
      content:
        "The Mekong flows through six countries. It starts in the Tibetan plateau and ends in the South " +
        "China Sea. Millions of people depend on its fish and its water for rice farming. Dams upstream " +
        "change the flow and the sediment that feeds the delta.",
    });
    expect(map.root.label).toBe("The Mekong flows through six countries");
    expect(map.root.children.map((branch) => branch.label)).toEqual([
      "It starts in the Tibetan plateau and…",
      "Millions of people depend on its fish…",
      "Dams upstream change the flow and the…",
    ]);
  });

  it("lifts a model's branch that repeats its parent's label: its children stay, the repeat goes", () => {
    const tree = boundTree({
      label: "Mekong",
      children: [
        { label: "mekong.", children: [{ label: "Six countries", children: [] }] },
        { label: "Delta", children: [{ label: "Delta", children: [{ label: "Rice", children: [] }] }] },
      ],
    });
    expect(tree).toEqual({
      label: "Mekong",
      children: [
        { label: "Six countries", children: [] },
        { label: "Delta", children: [{ label: "Rice", children: [] }] },
      ],
    });
  });

  it("holds every map to 3 levels, 7 children and 40-character labels cut at a word", () => {
    const map = extractiveMindMap(BIG_NOTE);
    expect(depthOf(map.root)).toBe(MINDMAP_MAX_DEPTH);
    expect(widestOf(map.root)).toBe(MINDMAP_MAX_CHILDREN);
    for (const label of labelsOf(map.root)) {
      expect([...label].length).toBeLessThanOrEqual(MINDMAP_LABEL_MAX_CHARS);
      if (label.endsWith("…")) {
        // Cut at a word: what is kept is whole words of the text it came from.
        const source = label.startsWith("A very") ? map.title : LONG_ITEM(Number(label.split(" ")[1]));
        expect(`${source} `).toContain(`${written(label)} `);
      }
    }
  });

  it("fails note_too_short on an empty note", () => {
    for (const content of ["", "   \n\n", "# \n- \n"]) {
      const attempt = () =>
        extractiveMindMap({ note_id: "n-empty", title: "Empty", language: "en", content });
      expect(attempt).toThrow(ContentError);
      expect(attempt).toThrow(expect.objectContaining({ code: "note_too_short" }));
    }
  });
});

describe("mind map from the chat model", () => {
  let server: FakeServer;
  let answer = "";
  beforeAll(async () => {
    server = await startServer((req, res) => {
      if (req.headers.authorization !== "Bearer sk-llm")
        return sendJson(res, 401, { error: { message: "no" } });
      sendJson(res, 200, { choices: [{ index: 0, message: { role: "assistant", content: answer } }] });
    });
  });
  afterAll(async () => {
    await server.close();
  });
  const config = () =>
    llmConfigFromEnv({ VOXEDGE_LLM_URL: server.url, VOXEDGE_LLM_API_KEY: "sk-llm", VOXEDGE_LLM_MODEL: "m" })!;

  it("asks in the note's language and holds the answer to the bounds", async () => {
    const deep = (label: string, depth: number): object => ({
      label,
      children: depth === 0 ? [] : [deep(`${label} con`, depth - 1)],
    });
    answer = `Đây là sơ đồ:\n\`\`\`json\n${JSON.stringify({
      branches: [
        deep("Đồng bằng sông Cửu Long", 5),
        ...Array.from({ length: 9 }, (_, i) => ({
          label: `Nhánh thứ ${i + 1} của dòng sông Mê Kông rất dài và quanh co`,
        })),
      ],
    })}\n\`\`\``;
    const map = await llmMindMap(config(), VIETNAMESE_NOTE, signal);
    const prompt = (server.requests.at(-1)?.body as { messages: { content: string }[] }).messages;
    expect(prompt[0]?.content).toContain("Vietnamese");
    expect(prompt[1]?.content).toContain("Cần Thơ");
    expect(map).toMatchObject({ title: "Sông Mê Kông", language: "vi", source: "llm" });
    expect(map.root.label).toBe("Sông Mê Kông");
    expect(map.root.children.length).toBe(MINDMAP_MAX_CHILDREN);
    expect(map.root.children[0]?.label).toBe("Đồng bằng sông Cửu Long");
    expect(map.root.children[1]?.label).toBe("Nhánh thứ 1 của dòng sông Mê Kông rất…");
    expect(depthOf(map.root)).toBe(MINDMAP_MAX_DEPTH);
  });

  it("fails llm_failed on an answer without branches, and note_too_short on an empty note without asking", async () => {
    answer = "I cannot draw that.";
    await expect(llmMindMap(config(), ENGLISH_NOTE, signal)).rejects.toMatchObject({ code: "llm_failed" });
    answer = '{"branches": [{"label": "  "}]}';
    await expect(llmMindMap(config(), ENGLISH_NOTE, signal)).rejects.toMatchObject({ code: "llm_failed" });
    const asked = server.requests.length;
    await expect(llmMindMap(config(), { ...ENGLISH_NOTE, content: " \n " }, signal)).rejects.toMatchObject({
      code: "note_too_short",
    });
    expect(server.requests.length).toBe(asked);
  });
});

describe("mind map files", () => {
  let browser: Browser;
  let page: Page;
  let dir: string;
  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage();
    dir = await mkdtemp(join(tmpdir(), "voxedge-mindmap-test-"));
  });
  afterAll(async () => {
    await browser?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The OPML's outlines as a tree, by Chromium's XML parser; null when it does not parse. */
  const parseOpml = (opml: string) =>
    page.evaluate<{ version: string | null; title: string | null; root: MindMapNode } | null>(`(() => {
      const doc = new DOMParser().parseFromString(${JSON.stringify(opml)}, "application/xml");
      if (doc.querySelector("parsererror")) return null;
      const tree = (el) => ({
        label: el.getAttribute("text"),
        children: [...el.children].filter((c) => c.tagName === "outline").map(tree),
      });
      const top = [...doc.querySelector("body").children];
      return {
        version: doc.documentElement.getAttribute("version"),
        title: doc.querySelector("head > title")?.textContent ?? null,
        root: top.length === 1 ? tree(top[0]) : null,
      };
    })()`);

  it("writes OPML 2.0 that an XML parser reads back as the same tree, markup characters included", async () => {
    const map: MindMap = {
      title: `Salt & "sea" <rise>`,
      language: "en",
      source: "outline",
      root: {
        label: `Salt & "sea" <rise>`,
        children: [{ label: "Tom's </outline> & more", children: [{ label: "a\u0001b", children: [] }] }],
      },
    };
    const parsed = await parseOpml(mindMapOpml(map));
    expect(parsed).toEqual({
      version: "2.0",
      title: `Salt & "sea" <rise>`,
      root: {
        ...map.root,
        children: [{ label: "Tom's </outline> & more", children: [{ label: "ab", children: [] }] }],
      },
    });
    for (const note of [ENGLISH_NOTE, PLAIN_VIETNAMESE_NOTE]) {
      const real = extractiveMindMap(note);
      expect((await parseOpml(mindMapOpml(real)))?.root).toEqual(real.root);
    }
  });

  it("writes Markdown as a nested list with the labels exact and markup escaped", () => {
    const markdown = mindMapMarkdown(extractiveMindMap(PLAIN_VIETNAMESE_NOTE));
    expect(markdown.split("\n")[0]).toBe("# Sông Mê Kông");
    expect(markdown).toContain("\n  - Cần Thơ\n");
    const escaped = mindMapMarkdown({
      title: "t",
      language: "en",
      source: "outline",
      root: { label: "# Not a heading", children: [{ label: "<b>*bold*</b>", children: [] }] },
    });
    expect(escaped).toBe("# \\# Not a heading\n\n- \\<b\\>\\*bold\\*\\</b\\>\n");
  });

  for (const [name, note] of [
    ["English note with headings", ENGLISH_NOTE],
    ["Vietnamese note without headings", PLAIN_VIETNAMESE_NOTE],
  ] as const) {
    it(`draws the ${name} as SVG and PNG with no two labels overlapping and all on the canvas`, async () => {
      const map = extractiveMindMap(note);
      const out = join(dir, note.note_id);
      await import("node:fs/promises").then((fs) => fs.mkdir(out));
      const files = await writeMindMapFiles(map, out, { ffmpeg: "ffmpeg" }, signal);
      expect(files.map((f) => f.format)).toEqual(["json", "opml", "markdown", "svg", "png"]);
      const read = (format: keyof typeof MINDMAP_FILE_TYPES) =>
        readFile(join(out, MINDMAP_FILE_TYPES[format].name));
      expect(JSON.parse((await read("json")).toString("utf8"))).toEqual(map);
      const svg = (await read("svg")).toString("utf8");
      const labels = labelsOf(map.root);

      // The boxes as the file states them.
      const { view, boxes } = svgBoxes(svg);
      expect(boxes.length).toBe(labels.length);
      expect(overlappingPairs(boxes)).toEqual([]);
      for (const box of boxes) expect(inside(box, view)).toBe(true);

      // The text as Chromium draws it, in the embedded face.
      await page.setContent(`<!doctype html><body style="margin:0">${svg}</body>`);
      const drawn = await page.evaluate<{
        font: boolean;
        texts: (Box & { text: string; rect: Box })[];
      }>(`(async () => {
        await document.fonts.ready;
        const box = (b) => ({ x: b.x, y: b.y, w: b.width, h: b.height });
        return {
          font: document.fonts.check('600 16px "Be Vietnam Pro"') && [...document.fonts].some((f) => f.status === "loaded"),
          texts: [...document.querySelectorAll("g.node")].map((g) => ({
            text: g.querySelector("text").textContent,
            ...box(g.querySelector("text").getBBox()),
            rect: box(g.querySelector("rect").getBBox()),
          })),
        };
      })()`);
      expect(drawn.font).toBe(true);
      expect(drawn.texts.map((t) => t.text)).toEqual(labels);
      expect(overlappingPairs(drawn.texts)).toEqual([]);
      for (const text of drawn.texts) {
        expect(inside(text, text.rect, 0.5), `"${text.text}" leaves its box`).toBe(true);
        expect(inside(text, view)).toBe(true);
      }

      // The PNG: the SVG's size, a white canvas with the title's dark box where the SVG put it.
      const png = join(out, MINDMAP_FILE_TYPES.png.name);
      const size = execFileSync("ffprobe", [
        "-v",
        "error",
        "-show_entries",
        "stream=width,height",
        "-of",
        "csv=p=0",
        png,
      ])
        .toString("utf8")
        .trim();
      expect(size).toBe(`${view.w},${view.h}`);
      const gray = execFileSync(
        "ffmpeg",
        ["-v", "error", "-i", png, "-f", "rawvideo", "-pix_fmt", "gray", "pipe:1"],
        {
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      expect(gray.length).toBe(view.w * view.h);
      // Boxes, text and curves cover a good part of the canvas; a blank or failed draw covers none.
      const drawnShare = gray.filter((v) => v < 250).length / gray.length;
      expect(drawnShare).toBeGreaterThan(0.08);
      const root = boxes[0] as Box;
      const at = (x: number, y: number) => gray[Math.round(y) * view.w + Math.round(x)] ?? 255;
      expect(at(root.x + 3, root.y + root.h / 2)).toBeLessThan(100);
      expect(at(root.x - 6, root.y + root.h / 2)).toBe(255);
      // ... and the title written in it, light on dark.
      let lit = 0;
      for (let y = Math.ceil(root.y); y < root.y + root.h; y++)
        for (let x = Math.ceil(root.x); x < root.x + root.w; x++) if (at(x, y) > 200) lit++;
      expect(lit / (root.w * root.h)).toBeGreaterThan(0.05);
    });
  }

  it("keeps a label that looks like markup as text in the SVG", async () => {
    const hostile = `</text><image href="file:///etc/passwd"/><text>`;
    const map: MindMap = {
      title: hostile,
      language: "en",
      source: "llm",
      root: { label: "Root & <co>", children: [{ label: hostile, children: [] }] },
    };
    const svg = mindMapSvg(map, layoutMindMap(map.root));
    const parsed = await page.evaluate<{ error: boolean; images: number; texts: string[] }>(`(() => {
      const doc = new DOMParser().parseFromString(${JSON.stringify(svg)}, "image/svg+xml");
      return {
        error: Boolean(doc.querySelector("parsererror")),
        images: doc.querySelectorAll("image").length,
        texts: [...doc.querySelectorAll("text")].map((t) => t.textContent),
      };
    })()`);
    expect(parsed).toEqual({ error: false, images: 0, texts: ["Root & <co>", hostile] });
  });

  it("keeps the layout apart and on the canvas for the smallest and the largest maps", () => {
    const small = extractiveMindMap({
      note_id: "n-one",
      title: "Một",
      language: "vi",
      content: "- Hà Nội\n- Huế",
    });
    const large = extractiveMindMap(BIG_NOTE);
    for (const map of [small, large]) {
      const { view, boxes } = svgBoxes(mindMapSvg(map, layoutMindMap(map.root)));
      expect(boxes.length).toBe(labelsOf(map.root).length);
      expect(overlappingPairs(boxes)).toEqual([]);
      for (const box of boxes) expect(inside(box, view)).toBe(true);
    }
  });
});
