/**
 * The editable deck: pptxgenjs writes native PowerPoint shapes and text boxes (not pictures of
 * slides), so every heading and bullet can be edited in PowerPoint, Keynote or Google Slides —
 * the first thing users of slide generators ask for. Each slide's narration is its speaker notes.
 */
import { writeFile } from "node:fs/promises";
import PptxGenJS from "pptxgenjs";
import { ContentError } from "./errors.ts";
import type { SlideLayout } from "./slides-layout.ts";

export interface DeckMeta {
  title: string;
  language: string;
}

/**
 * Writes the slides to a .pptx at `path`.
 *
 * @example
 * await writePptx(layouts, { title: "Rivers", language: "en" }, "Arial", "/tmp/deck.pptx");
 */
export async function writePptx(
  layouts: readonly SlideLayout[],
  meta: DeckMeta,
  fontFace: string,
  path: string,
): Promise<void> {
  const pptx = new PptxGenJS();
  pptx.layout = "LAYOUT_WIDE";
  pptx.title = meta.title;
  pptx.author = "Voxedge";
  pptx.company = "Voxedge";
  const lang = meta.language === "vi" ? "vi-VN" : "en-US";
  for (const layout of layouts) {
    const slide = pptx.addSlide();
    slide.background = { color: layout.background };
    if (layout.notes) slide.addNotes(layout.notes);
    for (const e of layout.elements) {
      if (e.type === "rect") {
        slide.addShape(pptx.ShapeType.rect, {
          x: e.x,
          y: e.y,
          w: e.w,
          h: e.h,
          fill: { color: e.fill },
          line: { color: e.fill, width: 0 },
        });
      } else if (e.type === "text") {
        slide.addText(e.text, {
          x: e.x,
          y: e.y,
          w: e.w,
          h: e.h,
          fontFace,
          fontSize: e.fontSize,
          color: e.color,
          bold: e.bold,
          align: e.align,
          valign: e.valign,
          lang,
          margin: 0,
          fit: "shrink",
        });
      } else {
        slide.addText(
          e.items.map((item) => ({ text: item, options: { bullet: { indent: 24 }, breakLine: true } })),
          {
            x: e.x,
            y: e.y,
            w: e.w,
            h: e.h,
            fontFace,
            fontSize: e.fontSize,
            color: e.color,
            valign: "top",
            lang,
            paraSpaceAfter: Math.round(e.fontSize * 0.4),
            margin: 0,
            fit: "shrink",
          },
        );
      }
    }
  }
  try {
    const data = (await pptx.write({ outputType: "nodebuffer", compression: true })) as Uint8Array;
    await writeFile(path, data);
  } catch (error) {
    throw new ContentError("slides_failed", `PPTX could not be written: ${String(error)}`, { cause: error });
  }
}
