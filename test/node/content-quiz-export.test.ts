/**
 * The quiz exports read back by real readers: GIFT by the GIFT parser (gift-pegjs), Moodle XML by
 * libxml2 (xmllint), the PDF by poppler (pdftotext), the JSON by its own schema. Every question,
 * option, right answer and explanation must survive, GIFT's and XML's special characters included.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseGift } from "gift-pegjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExtractiveQuizWriter, type QuizQuestion } from "../../inference-node/content/quiz.ts";
import { escapeGift, quizToGift } from "../../inference-node/content/quiz-export/gift.ts";
import { QuizExportJson, quizToJson } from "../../inference-node/content/quiz-export/json.ts";
import { quizToMoodleXml } from "../../inference-node/content/quiz-export/moodle-xml.ts";
import { writeQuizPdf } from "../../inference-node/content/quiz-export/pdf.ts";
import type { QuizMeta } from "../../inference-node/content/quiz-export/quiz-meta.ts";
import { ENGLISH_NOTE, pdfPages, pdfText, VIETNAMESE_NOTE } from "./content-helpers.ts";

/** Text that GIFT, XML and CDATA each treat specially. */
const TRICKY: QuizQuestion[] = [
  {
    question: "In GIFT, which character starts a wrong answer: ~ or = or #?",
    options: ["~ (tilde)", "= (equals)", "# (hash)", "{curly} braces: both"],
    answer_index: 0,
    explanation: "A ~ marks a wrong answer, = the right one, # feedback, {} the answers: C:\\path stays.",
  },
  {
    question: "Which is valid XML text: a < b & c > d, or ]]> inside CDATA?",
    options: ["a < b & c > d", "]]> alone", "\"quoted\" 'text'", "<tag/>"],
    answer_index: 2,
    explanation: "CDATA ends at ]]>, so it must be split; <, & and > need nothing inside CDATA.",
  },
  {
    question: "Câu hỏi: Hà Nội là thủ đô của nước nào?\nMột dòng mới.",
    options: ["Việt Nam", "Lào", "Cam-pu-chia", "Thái Lan"],
    answer_index: 0,
    explanation: "Hà Nội là thủ đô của Việt Nam từ năm 1976 (= thủ đô cả nước).",
  },
];

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();
const signal = new AbortController().signal;
const quizzes: { meta: QuizMeta; questions: QuizQuestion[] }[] = [];
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "quiz-export-"));
  for (const note of [ENGLISH_NOTE, VIETNAMESE_NOTE]) {
    const language = note.language as QuizMeta["language"];
    const questions = await new ExtractiveQuizWriter().write({ note, language, maxQuestions: 5 }, signal);
    quizzes.push({ meta: { title: note.title, language }, questions });
  }
  quizzes.push({ meta: { title: "GIFT: {special} ~ = # chars", language: "en" }, questions: TRICKY });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("GIFT", () => {
  it("escapes each of GIFT's control characters and the backslash", () => {
    expect(escapeGift("a~b=c#d{e}f:g\\h")).toBe("a\\~b\\=c\\#d\\{e\\}f\\:g\\\\h");
  });

  it("parses back with gift-pegjs to the same questions, options, right answers and feedback", () => {
    for (const { meta, questions } of quizzes) {
      const parsed = parseGift(quizToGift(meta.title, questions));
      expect(parsed).toHaveLength(questions.length);
      parsed.forEach((q, i) => {
        const source = questions[i]!;
        expect(q.type).toBe("MC");
        if (q.type !== "MC") return;
        expect(q.title).toBe(`${oneLine(meta.title)} ${i + 1}`);
        expect(q.stem.text).toBe(oneLine(source.question));
        expect(q.choices.map((c) => c.text.text)).toEqual(source.options);
        expect(q.choices.map((c) => c.isCorrect)).toEqual(
          source.options.map((_, j) => j === source.answer_index),
        );
        expect(q.globalFeedback?.text).toBe(source.explanation);
      });
    }
  });
});

describe("Moodle XML", () => {
  const xpath = (file: string, expression: string) =>
    // xmllint ends its answer with a newline of its own.
    execFileSync("xmllint", ["--xpath", expression, file]).toString("utf8").replace(/\n$/, "");

  it("is well-formed and holds one single-answer multichoice question per quiz question", async () => {
    for (const [n, { meta, questions }] of quizzes.entries()) {
      const file = join(dir, `quiz-${n}.xml`);
      await writeFile(file, quizToMoodleXml(meta.title, questions));
      execFileSync("xmllint", ["--noout", file]);
      expect(xpath(file, "count(/quiz/question)")).toBe(String(questions.length));
      expect(xpath(file, "count(/quiz/question[@type='multichoice' and single='true'])")).toBe(
        String(questions.length),
      );
      for (const [i, q] of questions.entries()) {
        const at = `/quiz/question[${i + 1}]`;
        expect(xpath(file, `string(${at}/name/text)`)).toBe(`${meta.title} ${i + 1}`);
        expect(xpath(file, `string(${at}/questiontext/text)`)).toBe(q.question);
        expect(xpath(file, `string(${at}/generalfeedback/text)`)).toBe(q.explanation);
        expect(xpath(file, `count(${at}/answer)`)).toBe(String(q.options.length));
        for (const [j, option] of q.options.entries()) {
          expect(xpath(file, `string(${at}/answer[${j + 1}]/text)`)).toBe(option);
          expect(xpath(file, `string(${at}/answer[${j + 1}]/@fraction)`)).toBe(
            j === q.answer_index ? "100" : "0",
          );
        }
      }
    }
  });

  it("drops the control characters XML 1.0 forbids, so the file stays well-formed", async () => {
    const file = join(dir, "control.xml");
    const question = { ...TRICKY[0]!, question: "Bell\u0007 and form feed\u000c here?" };
    await writeFile(file, quizToMoodleXml("Control", [question]));
    execFileSync("xmllint", ["--noout", file]);
    expect(xpath(file, "string(/quiz/question[1]/questiontext/text)")).toBe("Bell and form feed here?");
  });
});

describe("JSON", () => {
  it("matches its schema and carries the questions unchanged", () => {
    for (const { meta, questions } of quizzes) {
      const parsed = QuizExportJson.parse(JSON.parse(quizToJson(meta, questions)));
      expect(parsed).toEqual({ format: "voxedge.quiz", version: 1, ...meta, questions });
    }
  });
});

describe("PDF", () => {
  it("prints every question and option, then the answer key on a page of its own", async () => {
    const labels = { en: "Answer key", vi: "Đáp án" };
    for (const [n, { meta, questions }] of quizzes.entries()) {
      const file = join(dir, `quiz-${n}.pdf`);
      await writeQuizPdf(meta, questions, file);
      const pages = pdfText(file)
        .split("\f")
        .map(oneLine)
        .filter((page) => page.length > 0);
      expect(pages.length).toBe(pdfPages(file));
      const keyPage = pages.findIndex((page) =>
        page.startsWith(`${labels[meta.language]}: ${oneLine(meta.title)}`),
      );
      expect(keyPage, `the answer key's page in ${JSON.stringify(pages)}`).toBeGreaterThan(0);
      const sheet = pages.slice(0, keyPage).join(" ");
      const key = pages.slice(keyPage).join(" ");
      expect(sheet).not.toContain(labels[meta.language]);
      for (const [i, q] of questions.entries()) {
        expect(sheet).toContain(`${i + 1}. ${oneLine(q.question)}`);
        for (const [j, option] of q.options.entries()) expect(sheet).toContain(`${"ABCD"[j]}. ${option}`);
        const letter = "ABCD"[q.answer_index];
        expect(key).toContain(`${i + 1}. ${letter}. ${q.options[q.answer_index]} ${oneLine(q.explanation)}`);
      }
    }
  });
});
