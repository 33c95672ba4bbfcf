/**
 * Studio quality (#32 point 9), quiz and study guide: each artifact rendered from an English and a
 * Vietnamese note as a node renders it, and checked for what a person would see: the GIFT file as
 * Moodle's GIFT grammar reads it, the Moodle XML through libxml2, the PDFs as poppler reads them
 * (every question and option with exact diacritics, the answer key on its own page, sections in
 * order), the Markdown's sections, and sizes in range.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseGift } from "gift-pegjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StageSpeeds } from "../../inference-node/content/progress.ts";
import type { QuizQuestion } from "../../inference-node/content/quiz.ts";
import { type ContentResult, runContentTask } from "../../inference-node/content/run-content-task.ts";
import { noteSentences } from "../../inference-node/content/script.ts";
import { GUIDE_LABELS } from "../../inference-node/content/study-guide/labels.ts";
import { EspeakSynthesizer } from "../../inference-node/content/tts/espeak.ts";
import type { NoteSnapshot } from "../../protocol/content.ts";
import { pdfPages, pdfText, recordingContext } from "./content-helpers.ts";
import { HA_LONG_EN, HA_LONG_VI } from "./fixtures/studio-notes-quiz.ts";

const NOTES = [HA_LONG_EN, HA_LONG_VI] as const;
const ANSWER_KEY = { en: "Answer key", vi: "Đáp án" } as const;
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();
let root: string;
const made: ContentResult[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "studio-quality-quiz-"));
});
afterAll(async () => {
  await Promise.all(made.map((r) => r.cleanup()));
  await rm(root, { recursive: true, force: true });
});

async function render(kind: "quiz" | "study_guide", note: NoteSnapshot): Promise<ContentResult> {
  const deps = {
    synthesizer: new EspeakSynthesizer(),
    tools: { ffmpeg: "ffmpeg" },
    llm: null,
    speeds: new StageSpeeds(),
    tmpRoot: root,
  };
  const result = await runContentTask({ kind, params: { note } }, deps, recordingContext().ctx);
  made.push(result);
  return result;
}

const path = (result: ContentResult, role: string) => result.files.find((f) => f.role === role)?.path ?? "";

async function sizeKb(file: string): Promise<number> {
  return (await stat(file)).size / 1024;
}

describe.each(NOTES)("quiz from the $language note", (note) => {
  const language = note.language as "en" | "vi";
  let quiz: ContentResult;
  let questions: QuizQuestion[];

  beforeAll(async () => {
    quiz = await render("quiz", note);
    questions = quiz.data.questions as QuizQuestion[];
  });

  it("asks five questions from the note's own sentences, four distinct options each", () => {
    expect(questions).toHaveLength(5);
    const sentences = noteSentences(note);
    for (const q of questions) {
      expect(sentences).toContain(q.question.replace("_____", q.options[q.answer_index] ?? ""));
      expect(new Set(q.options).size).toBe(4);
    }
  });

  it("imports into Moodle: GIFT and Moodle XML read back to the same questions, diacritics exact", async () => {
    const gift = parseGift(await readFile(path(quiz, "gift"), "utf8"));
    expect(
      gift.map((q) =>
        q.type === "MC" ? [q.stem.text, q.choices.map((c) => [c.text.text, c.isCorrect])] : [],
      ),
    ).toEqual(questions.map((q) => [q.question, q.options.map((o, i) => [o, i === q.answer_index])]));
    const xml = path(quiz, "moodle_xml");
    execFileSync("xmllint", ["--noout", xml]);
    const texts = execFileSync("xmllint", ["--xpath", "//question/questiontext/text/text()", xml]).toString(
      "utf8",
    );
    for (const q of questions) expect(texts).toContain(q.question);
  });

  it("prints a sheet a class can be handed: every question and option, the answer key on its own page", async () => {
    const file = path(quiz, "pdf");
    const pages = pdfText(file).split("\f").map(oneLine).filter(Boolean);
    expect(pages.length).toBe(pdfPages(file));
    expect(pages.length).toBeLessThanOrEqual(4);
    const keyPage = pages.findIndex((page) => page.startsWith(`${ANSWER_KEY[language]}: ${note.title}`));
    expect(keyPage).toBeGreaterThan(0);
    const sheet = pages.slice(0, keyPage).join(" ");
    const key = pages.slice(keyPage).join(" ");
    expect(sheet.startsWith(note.title)).toBe(true);
    for (const [i, q] of questions.entries()) {
      expect(sheet).toContain(`${i + 1}. ${q.question}`);
      for (const [j, option] of q.options.entries()) expect(sheet).toContain(`${"ABCD"[j]}. ${option}`);
      expect(key).toContain(`${i + 1}. ${"ABCD"[q.answer_index]}. ${q.options[q.answer_index]}`);
      expect(sheet).not.toContain(q.explanation);
    }
    expect(await sizeKb(file)).toBeGreaterThan(5);
    expect(await sizeKb(file)).toBeLessThan(1024);
  });
});

describe.each(NOTES)("study guide from the $language note", (note) => {
  const labels = GUIDE_LABELS[note.language as "en" | "vi"];
  let guide: ContentResult;

  beforeAll(async () => {
    guide = await render("study_guide", note);
  });

  it("has its sections in order in the Markdown, the timeline from the note's dated sentences", async () => {
    const markdown = await readFile(path(guide, "markdown"), "utf8");
    const headings = markdown.match(/^#{1,2} .+$/gm);
    expect(headings).toEqual([
      `# ${note.title}`,
      `## ${labels.summary}`,
      `## ${labels.keyTerms}`,
      `## ${labels.questions}`,
      `## ${labels.timeline}`,
    ]);
    const sentences = noteSentences(note);
    const timeline = markdown.split(`## ${labels.timeline}`)[1]?.match(/^- \*\*.+?\*\*: (.+)$/gm) ?? [];
    expect(timeline).toHaveLength(2);
    for (const line of timeline) expect(sentences).toContain(line.replace(/^- \*\*.+?\*\*: /, ""));
    expect(guide.data).toMatchObject({ has_timeline: true, language: note.language });
  });

  it("prints the same sections and terms, diacritics exact, on one or two pages", async () => {
    const file = path(guide, "pdf");
    const text = oneLine(pdfText(file));
    const markdown = await readFile(path(guide, "markdown"), "utf8");
    const order = [note.title, labels.summary, labels.keyTerms, labels.questions, labels.timeline].map((s) =>
      text.indexOf(s),
    );
    expect(order.every((at, i) => at >= 0 && (i === 0 || at > (order[i - 1] ?? 0)))).toBe(true);
    for (const [, term] of markdown.matchAll(/^- \*\*(.+?)\*\*:/gm)) expect(text).toContain(`${term}:`);
    expect(pdfPages(file)).toBeLessThanOrEqual(2);
    expect(await sizeKb(file)).toBeGreaterThan(5);
    expect(await sizeKb(file)).toBeLessThan(1024);
  });
});
