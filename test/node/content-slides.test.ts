/** Slide decks end to end: an editable PPTX (read back with jszip) and a PDF (read back with pdfinfo). */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import JSZip from "jszip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StageSpeeds } from "../../inference-node/content/progress.ts";
import {
  type ContentDeps,
  type ContentResult,
  runContentTask,
} from "../../inference-node/content/run-content-task.ts";
import { EspeakSynthesizer } from "../../inference-node/content/tts/espeak.ts";
import { createTranslator } from "../../inference-node/translate/config.ts";
import { ENGLISH_NOTE, pdfPages, recordingContext, VIETNAMESE_NOTE } from "./content-helpers.ts";
import { type FakeServer, libreTranslateHandler, startServer } from "./translate-fake-servers.ts";

let root: string;
let libre: FakeServer;
const deps = (): ContentDeps => ({
  synthesizer: new EspeakSynthesizer(),
  tools: { ffmpeg: "ffmpeg" },
  llm: null,
  speeds: new StageSpeeds(),
  tmpRoot: root,
});

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "content-slides-"));
  libre = await startServer(libreTranslateHandler());
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  await libre.close();
});

/** The slide XML files of a PPTX (or its speaker notes, `notesSlides/notesSlide`), in slide order. */
async function slideXml(path: string, part = "slides/slide"): Promise<string[]> {
  const zip = await JSZip.loadAsync(await readFile(path));
  const names = Object.keys(zip.files)
    .filter((n) => n.startsWith(`ppt/${part}`) && /\d+\.xml$/.test(n))
    .sort((a, b) => Number(/(\d+)\.xml/.exec(a)?.[1]) - Number(/(\d+)\.xml/.exec(b)?.[1]));
  return Promise.all(names.map((n) => zip.file(n)!.async("string")));
}

const fileOf = (result: ContentResult, role: string) => result.files.find((f) => f.role === role)!.path;

describe("slide decks", () => {
  it("writes an editable PPTX and a PDF with one page per slide, within the range", async () => {
    const { reports, ctx } = recordingContext();
    const result = await runContentTask(
      {
        kind: "slide",
        params: { note: ENGLISH_NOTE, template_id: "slide-clean", slide_count: { min: 5, max: 8 } },
      },
      deps(),
      ctx,
    );
    try {
      expect(result.files.map((f) => f.contentType)).toEqual([
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "application/pdf",
      ]);
      const slides = await slideXml(fileOf(result, "pptx"));
      expect(slides.length).toBe(result.data.slide_count);
      expect(slides.length).toBeGreaterThanOrEqual(5);
      expect(slides.length).toBeLessThanOrEqual(8);
      // Real text runs, not pictures: the note's words are in the slide XML as text.
      const text = slides.join("\n");
      expect(slides[0]).toContain("<a:t>The Mekong River</a:t>");
      expect(text).toContain("<a:t>The giant catfish can weigh 300 kilograms.</a:t>");
      expect(text).toContain("<a:t>Ecology</a:t>");
      expect(text).not.toContain("<p:pic>");
      // every slide's narration is its speaker notes: whole sentences of the note, as a presenter says them
      const notes = await slideXml(fileOf(result, "pptx"), "notesSlides/notesSlide");
      expect(notes.length).toBe(slides.length);
      expect(notes[0]).toContain("The Mekong River.");
      expect(notes.join("\n")).toContain("The giant catfish can weigh 300 kilograms.");
      for (const note of notes.slice(1)) expect(note.match(/<a:t>([^<]{20,})<\/a:t>/)).not.toBeNull();
      expect(pdfPages(fileOf(result, "pdf"))).toBe(slides.length);
      expect(reports.at(-1)).toMatchObject({ step: "building_slides", progress: 95 });
    } finally {
      await result.cleanup();
    }
  });

  it("keeps every Vietnamese diacritic in the PPTX text and the PDF", async () => {
    const { ctx } = recordingContext();
    const result = await runContentTask(
      {
        kind: "slide",
        params: { note: VIETNAMESE_NOTE, template_id: "slide-forest", slide_count: { min: 3, max: 5 } },
      },
      deps(),
      ctx,
    );
    try {
      const text = (await slideXml(fileOf(result, "pptx"))).join("\n");
      expect(text).toContain("<a:t>Sông Mê Kông</a:t>");
      expect(text).toContain("Đồng bằng sông Cửu Long là vựa lúa lớn nhất Việt Nam.");
      expect(text).toContain('lang="vi-VN"');
      const notes = (await slideXml(fileOf(result, "pptx"), "notesSlides/notesSlide")).join("\n");
      expect(notes).toContain("Đồng bằng sông Cửu Long là vựa lúa lớn nhất Việt Nam.");
      expect(result.data.language).toBe("vi");
      const pages = pdfPages(fileOf(result, "pdf"));
      expect(pages).toBe(result.data.slide_count);
      expect(pages).toBeLessThanOrEqual(5);
    } finally {
      await result.cleanup();
    }
  });

  it("translates to the requested language with the node's translator, and fails translation_unavailable without one", async () => {
    const params = {
      note: VIETNAMESE_NOTE,
      template_id: "slide-midnight",
      language: "en",
      slide_count: { min: 4, max: 6 },
    };
    await expect(
      runContentTask({ kind: "slide", params }, deps(), recordingContext().ctx),
    ).rejects.toMatchObject({
      code: "translation_unavailable",
    });
    const translator = createTranslator({ backend: "libretranslate", url: libre.url })!;
    const { reports, ctx } = recordingContext();
    const result = await runContentTask(
      { kind: "slide", params },
      { ...deps(), translate: (text, from, to, signal) => translator.translate(text, from, to, signal) },
      ctx,
    );
    try {
      expect(result.data.language).toBe("en");
      const steps = reports.map((r) => r.step).filter((step, i, all) => step !== all[i - 1]);
      expect(steps).toEqual(["building_slides", "translating", "building_slides"]);
      const text = (await slideXml(fileOf(result, "pptx"))).join("\n");
      // The fake LibreTranslate tags what it translated: every bullet went through it.
      expect(text).toContain("&lt;en&gt;Đồng bằng sông Cửu Long");
      expect(text).toContain("<a:t>Summary</a:t>");
    } finally {
      await result.cleanup();
    }
  });
});
