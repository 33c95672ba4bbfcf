/**
 * The PDF twin of the deck, drawn with pdfkit from the same layout model as the PPTX (one page per
 * slide) with Be Vietnam Pro embedded, so Vietnamese renders the same in every viewer. LibreOffice
 * (PPTX → PDF) is not on the node and a headless browser is heavy per task; pdfkit is pure JS and
 * takes tens of milliseconds.
 */
import { createWriteStream } from "node:fs";
import PDFDocument from "pdfkit";
import { ContentError } from "./errors.ts";
import { BOLD_FONT_FILE, REGULAR_FONT_FILE } from "./fonts.ts";
import { PAGE_HEIGHT_IN, PAGE_WIDTH_IN, type SlideLayout } from "./slides-layout.ts";
import type { DeckMeta } from "./slides-pptx.ts";

const PT = 72;

/**
 * Writes the slides to a PDF at `path`.
 *
 * @example
 * await writePdf(layouts, { title: "Rivers", language: "en" }, "/tmp/deck.pdf");
 */
export async function writePdf(layouts: readonly SlideLayout[], meta: DeckMeta, path: string): Promise<void> {
  const doc = new PDFDocument({
    size: [PAGE_WIDTH_IN * PT, PAGE_HEIGHT_IN * PT],
    margin: 0,
    autoFirstPage: false,
    info: { Title: meta.title, Author: "Voxedge" },
    lang: meta.language,
  });
  const done = new Promise<void>((resolve, reject) => {
    const out = createWriteStream(path);
    out.on("finish", resolve);
    out.on("error", reject);
    doc.on("error", reject);
    doc.pipe(out);
  });
  try {
    doc.registerFont("Regular", REGULAR_FONT_FILE);
    doc.registerFont("Bold", BOLD_FONT_FILE);
    for (const layout of layouts) {
      doc.addPage();
      doc.rect(0, 0, PAGE_WIDTH_IN * PT, PAGE_HEIGHT_IN * PT).fill(`#${layout.background}`);
      for (const e of layout.elements) {
        const [x, y, w, h] = [e.x * PT, e.y * PT, e.w * PT, e.h * PT];
        if (e.type === "rect") {
          doc.rect(x, y, w, h).fill(`#${e.fill}`);
        } else if (e.type === "text") {
          doc
            .font(e.bold ? "Bold" : "Regular")
            .fontSize(e.fontSize)
            .fillColor(`#${e.color}`);
          const options = { width: w, height: h, align: e.align, lineGap: e.fontSize * 0.1, ellipsis: true };
          const used = Math.min(h, doc.heightOfString(e.text, options));
          doc.text(e.text, x, e.valign === "middle" ? y + (h - used) / 2 : y, options);
        } else {
          doc.font("Regular").fontSize(e.fontSize);
          let at = y;
          for (const item of e.items) {
            const options = { width: w - 0.5 * PT, lineGap: e.fontSize * 0.1 };
            doc.circle(x + 8, at + e.fontSize * 0.62, e.fontSize * 0.16).fill(`#${e.bullet}`);
            doc.fillColor(`#${e.color}`).text(item, x + 0.5 * PT, at, options);
            at += doc.heightOfString(item, options) + e.fontSize * 0.4;
          }
        }
      }
    }
    doc.end();
    await done;
  } catch (error) {
    throw new ContentError("slides_failed", `PDF could not be written: ${String(error)}`, { cause: error });
  }
}
