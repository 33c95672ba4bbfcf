/** The quiz as JSON: the generator's questions as they are, under the quiz's name and language. */
import { z } from "zod";
import type { QuizQuestion } from "../quiz.ts";
import type { QuizMeta } from "./quiz-meta.ts";

/** The JSON export's shape (`format` and `version` let readers tell it from other files). */
export const QuizExportJson = z.object({
  format: z.literal("voxedge.quiz"),
  version: z.literal(1),
  title: z.string(),
  language: z.enum(["en", "vi"]),
  questions: z.array(
    z.object({
      question: z.string(),
      options: z.array(z.string()),
      answer_index: z.number().int().min(0),
      explanation: z.string(),
    }),
  ),
});
export type QuizExportJson = z.infer<typeof QuizExportJson>;

/**
 * @example
 * JSON.parse(quizToJson({ title: "Rivers", language: "en" }, questions)).questions.length; // 3
 */
export function quizToJson(meta: QuizMeta, questions: readonly QuizQuestion[]): string {
  const document: QuizExportJson = {
    format: "voxedge.quiz",
    version: 1,
    title: meta.title,
    language: meta.language,
    questions: questions.map(({ question, options, answer_index, explanation }) => ({
      question,
      options,
      answer_index,
      explanation,
    })),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
