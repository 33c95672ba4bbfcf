/** The study guide as a PDF, the same sections as the Markdown (no timeline when undated). */
import { heading, writePdfDocument } from "../pdf-document.ts";
import type { StudyGuide } from "./guide.ts";
import { GUIDE_LABELS } from "./labels.ts";

/**
 * @example
 * await writeStudyGuidePdf(guide, "/tmp/guide.pdf");
 */
export async function writeStudyGuidePdf(guide: StudyGuide, path: string): Promise<void> {
  const labels = GUIDE_LABELS[guide.language];
  await writePdfDocument(guide, path, (doc) => {
    heading(doc, guide.title, 20);
    const section = (title: string) => heading(doc.moveDown(0.6), title, 15);
    const labelled = (label: string, text: string) => {
      doc.fontSize(11).font("Bold").text(`${label}: `, { continued: true }).font("Regular").text(text);
      doc.moveDown(0.3);
    };
    section(labels.summary);
    doc.fontSize(11).text(guide.summary.join(" "));
    section(labels.keyTerms);
    for (const t of guide.key_terms) labelled(t.term, t.definition);
    section(labels.questions);
    guide.questions.forEach((q, i) => {
      doc
        .fontSize(11)
        .text(`${i + 1}. ${q}`)
        .moveDown(0.3);
    });
    if (guide.timeline.length > 0) {
      section(labels.timeline);
      for (const e of guide.timeline) labelled(e.date, e.event);
    }
  });
}
