/**
 * GIFT, Moodle's plain-text quiz format: `::title:: question {=right ~wrong ~wrong ####feedback}`.
 * The explanation is the question's general feedback (`####`), shown whichever option was picked.
 */
import type { QuizQuestion } from "../quiz.ts";
import { numberedTitle, singleLine } from "./quiz-meta.ts";

/** GIFT's control characters (~ = # { } :) and the escape itself, each behind a backslash. */
export function escapeGift(text: string): string {
  return singleLine(text).replace(/[\\~=#{}:]/g, (c) => `\\${c}`);
}

/**
 * The quiz as a GIFT document, one question per block.
 *
 * @example
 * quizToGift("Rivers", [{ question: "Longest?", options: ["Nile", "Po"], answer_index: 0, explanation: "" }]);
 * // "::Rivers 1:: Longest? {\n=Nile\n~Po\n}\n"
 */
export function quizToGift(title: string, questions: readonly QuizQuestion[]): string {
  return questions
    .map((q, i) => {
      const options = q.options.map((o, j) => `${j === q.answer_index ? "=" : "~"}${escapeGift(o)}`);
      const feedback = q.explanation.trim() ? [`####${escapeGift(q.explanation)}`] : [];
      const head = `::${escapeGift(numberedTitle(title, i))}:: ${escapeGift(q.question)} {`;
      return [head, ...options, ...feedback, "}"].join("\n");
    })
    .join("\n\n")
    .concat("\n");
}
