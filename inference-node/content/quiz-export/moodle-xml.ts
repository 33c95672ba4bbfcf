/**
 * Moodle XML: one `multichoice` question per quiz question, single answer, the right option at
 * fraction 100 and the others at 0, the explanation as general feedback (shown after any answer).
 * Texts go in CDATA sections so note text needs no entity escaping.
 */
import type { QuizQuestion } from "../quiz.ts";
import { numberedTitle } from "./quiz-meta.ts";

/** False for the characters XML 1.0 forbids anywhere, even inside CDATA (most C0 controls, U+FFFE/F). */
function isXmlChar(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code !== 0xfffe && code !== 0xffff);
}

/** A CDATA section holding `text`; a "]]>" inside is split across two sections. */
export function cdata(text: string): string {
  return `<![CDATA[${[...text].filter(isXmlChar).join("").replaceAll("]]>", "]]]]><![CDATA[>")}]]>`;
}

const textElement = (text: string) => `<text>${cdata(text)}</text>`;

/**
 * The quiz as a Moodle XML question file.
 *
 * @example
 * quizToMoodleXml("Rivers", questions); // '<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n  <question type="multichoice">…'
 */
export function quizToMoodleXml(title: string, questions: readonly QuizQuestion[]): string {
  const blocks = questions.map((q, i) => {
    const answers = q.options.map(
      (option, j) =>
        `    <answer fraction="${j === q.answer_index ? 100 : 0}" format="plain_text">${textElement(option)}` +
        `<feedback format="plain_text"><text></text></feedback></answer>`,
    );
    return [
      `  <question type="multichoice">`,
      `    <name>${textElement(numberedTitle(title, i))}</name>`,
      `    <questiontext format="plain_text">${textElement(q.question)}</questiontext>`,
      `    <generalfeedback format="plain_text">${textElement(q.explanation)}</generalfeedback>`,
      "    <defaultgrade>1</defaultgrade>",
      "    <penalty>0.3333333</penalty>",
      "    <hidden>0</hidden>",
      "    <single>true</single>",
      "    <shuffleanswers>true</shuffleanswers>",
      "    <answernumbering>ABCD</answernumbering>",
      ...answers,
      "  </question>",
    ].join("\n");
  });
  return ['<?xml version="1.0" encoding="UTF-8"?>', "<quiz>", ...blocks, "</quiz>", ""].join("\n");
}
