/**
 * A printable quiz: the questions with lettered options, then the answer key (letter, answer and
 * explanation) on a page of its own so the sheet can be handed out without it.
 */
import { heading, writePdfDocument } from "../pdf-document.ts";
import type { QuizQuestion } from "../quiz.ts";
import { optionLetter, type QuizMeta } from "./quiz-meta.ts";

const ANSWER_KEY: Record<QuizMeta["language"], string> = { en: "Answer key", vi: "Đáp án" };

/**
 * @example
 * await writeQuizPdf({ title: "Rivers", language: "en" }, questions, "/tmp/quiz.pdf");
 */
export async function writeQuizPdf(
  meta: QuizMeta,
  questions: readonly QuizQuestion[],
  path: string,
): Promise<void> {
  await writePdfDocument(meta, path, (doc) => {
    heading(doc, meta.title, 20);
    doc.moveDown(0.5);
    questions.forEach((q, i) => {
      doc
        .font("Bold")
        .fontSize(12)
        .text(`${i + 1}. ${q.question}`)
        .font("Regular")
        .moveDown(0.3);
      q.options.forEach((option, j) => {
        doc.fontSize(11).text(`${optionLetter(j)}. ${option}`, { indent: 18 });
      });
      doc.moveDown(0.8);
    });
    doc.addPage();
    heading(doc, `${ANSWER_KEY[meta.language]}: ${meta.title}`, 18);
    questions.forEach((q, i) => {
      const letter = optionLetter(q.answer_index);
      doc
        .font("Bold")
        .fontSize(11)
        .text(`${i + 1}. ${letter}. ${q.options[q.answer_index] ?? ""}`)
        .font("Regular");
      if (q.explanation.trim()) doc.fontSize(10).fillColor("#4b5563").text(q.explanation, { indent: 18 });
      doc.fillColor("#111827").moveDown(0.5);
    });
  });
}
