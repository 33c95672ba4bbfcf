/**
 * A flowing A4 document (quiz sheets, study guides) drawn with pdfkit and Be Vietnam Pro embedded,
 * so Vietnamese diacritics render the same in every viewer. The slide deck has fixed-size pages of
 * its own (slides-pdf.ts); this is for text that flows onto as many pages as it needs.
 */
import { createWriteStream } from "node:fs";
import PDFDocument from "pdfkit";
import { ContentError } from "./errors.ts";
import { BOLD_FONT_FILE, REGULAR_FONT_FILE } from "./fonts.ts";

export type PdfDocument = PDFKit.PDFDocument;

export interface DocumentMeta {
  title: string;
  language: string;
}

/** Page margin in points (2 cm). */
const MARGIN = 57;

/**
 * Writes a PDF at `path` whose content `draw` lays out; the fonts "Regular" and "Bold" are
 * registered. Any failure is a ContentError `slides_failed` (the code of every PDF the node builds).
 *
 * @example
 * await writePdfDocument({ title: "Rivers", language: "en" }, "/tmp/a.pdf", (doc) => doc.text("Hi"));
 */
export async function writePdfDocument(
  meta: DocumentMeta,
  path: string,
  draw: (doc: PdfDocument) => void,
): Promise<void> {
  const doc = new PDFDocument({
    size: "A4",
    margin: MARGIN,
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
    doc.font("Regular");
    draw(doc);
    doc.end();
    await done;
  } catch (error) {
    throw new ContentError("slides_failed", `PDF could not be written: ${String(error)}`, { cause: error });
  }
}

/** A heading line in bold, then the regular face again. */
export function heading(doc: PdfDocument, text: string, size: number): void {
  doc.font("Bold").fontSize(size).fillColor("#1f2937").text(text).moveDown(0.4);
  doc.font("Regular").fillColor("#111827");
}
