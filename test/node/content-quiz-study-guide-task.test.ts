/**
 * The quiz and study_guide kinds run as a node runs them (runContentTask): their stages and steps,
 * the files each makes (opened by the reader a user would use), the result data, the asked language
 * through the translation stage, the chat-model path against a real HTTP server on 127.0.0.1, and
 * difficulty changing which sentences are asked and how close the wrong options are.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseGift } from "gift-pegjs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rankSentences } from "../../inference-node/content/keywords.ts";
import { llmConfigFromEnv } from "../../inference-node/content/llm.ts";
import { StageSpeeds } from "../../inference-node/content/progress.ts";
import { extractiveQuestions, optionDistance, type QuizQuestion } from "../../inference-node/content/quiz.ts";
import { QuizExportJson } from "../../inference-node/content/quiz-export/json.ts";
import {
  type ContentDeps,
  type ContentResult,
  runContentTask,
} from "../../inference-node/content/run-content-task.ts";
import { noteSentences } from "../../inference-node/content/script.ts";
import { EspeakSynthesizer } from "../../inference-node/content/tts/espeak.ts";
import { QuizParams, StudyGuideParams } from "../../protocol/content.ts";
import { CompleteRequest } from "../../protocol/node.ts";
import { pdfText, recordingContext } from "./content-helpers.ts";
import { HA_LONG_EN, HA_LONG_VI, haLongTranslator } from "./fixtures/studio-notes-quiz.ts";
import { type FakeServer, sendJson, startServer } from "./translate-fake-servers.ts";

let root: string;
let chat: FakeServer;
let chatAnswer = "";
const results: ContentResult[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "content-quiz-guide-"));
  chat = await startServer((req, res) => {
    if (req.path !== "/v1/chat/completions") return sendJson(res, 404, { error: { message: "no" } });
    sendJson(res, 200, {
      id: "chatcmpl-1",
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content: chatAnswer }, finish_reason: "stop" }],
    });
  });
});
afterAll(async () => {
  await Promise.all(results.map((r) => r.cleanup()));
  await chat.close();
  await rm(root, { recursive: true, force: true });
});
beforeEach(() => {
  chat.requests.length = 0;
});

const deps = (extra: Partial<ContentDeps> = {}): ContentDeps => ({
  synthesizer: new EspeakSynthesizer(),
  tools: { ffmpeg: "ffmpeg" },
  llm: null,
  speeds: new StageSpeeds(),
  tmpRoot: root,
  ...extra,
});
const withChat = () =>
  deps({ llm: llmConfigFromEnv({ VOXEDGE_LLM_URL: chat.url, VOXEDGE_LLM_MODEL: "local-model" }) });

async function run(kind: "quiz" | "study_guide", params: unknown, contentDeps = deps()) {
  const { reports, ctx } = recordingContext();
  const result = await runContentTask({ kind, params }, contentDeps, ctx);
  results.push(result);
  return { result, steps: [...new Set(reports.map((r) => r.step))] };
}

const fileOf = (result: ContentResult, role: string) => {
  const file = result.files.find((f) => f.role === role);
  if (!file) throw new Error(`no ${role} file`);
  return file.path;
};

/** What the node would complete with (the Worker checks the same schema). */
const completion = (kind: "quiz" | "study_guide", result: ContentResult) =>
  CompleteRequest.parse({
    kind,
    result: {
      ...result.data,
      outputs: result.files.map((f) => ({
        role: f.role,
        object_key: `outputs/t/${f.role}`,
        content_type: f.contentType,
        bytes: 1,
      })),
    },
  });

describe("quiz", () => {
  it("writes the asked number of questions as JSON, Moodle XML, GIFT and PDF, each opened by its reader", async () => {
    const params = QuizParams.parse({ note: HA_LONG_EN, count: 4, difficulty: "easy" });
    const { result, steps } = await run("quiz", params);
    expect(steps).toEqual(["writing_quiz"]);
    expect(result.files.map((f) => [f.role, f.contentType])).toEqual([
      ["json", "application/json"],
      ["moodle_xml", "application/xml"],
      ["gift", "text/plain"],
      ["pdf", "application/pdf"],
    ]);
    expect(result.data).toMatchObject({
      note_id: HA_LONG_EN.note_id,
      title: "Ha Long Bay",
      language: "en",
      difficulty: "easy",
      question_count: 4,
      text_source: "extractive",
    });
    const questions = result.data.questions as QuizQuestion[];
    expect(questions).toHaveLength(4);
    const json = QuizExportJson.parse(JSON.parse(await readFile(fileOf(result, "json"), "utf8")));
    expect(json.questions).toEqual(questions);
    const gift = parseGift(await readFile(fileOf(result, "gift"), "utf8"));
    expect(gift.map((q) => (q.type === "MC" ? q.stem.text : q.type))).toEqual(
      questions.map((q) => q.question),
    );
    const xml = fileOf(result, "moodle_xml");
    execFileSync("xmllint", ["--noout", xml]);
    expect(execFileSync("xmllint", ["--xpath", "count(/quiz/question)", xml]).toString().trim()).toBe("4");
    expect(pdfText(fileOf(result, "pdf"))).toContain("Answer key: Ha Long Bay");
    expect(completion("quiz", result).kind).toBe("quiz");
  });

  it("asks one question when one is asked for, and as many as the note yields when it has fewer than asked", async () => {
    const one = await run("quiz", QuizParams.parse({ note: HA_LONG_EN, count: 1 }));
    expect(one.result.data.question_count).toBe(1);
    const many = await run("quiz", QuizParams.parse({ note: HA_LONG_EN, count: 20 }));
    const count = many.result.data.question_count as number;
    expect(count).toBeGreaterThanOrEqual(5);
    expect(count).toBeLessThan(20);
  });

  it("translates the note first when another language is asked, and fails without a translator", async () => {
    const params = QuizParams.parse({ note: HA_LONG_EN, language: "vi" });
    const { result, steps } = await run("quiz", params, deps({ translate: haLongTranslator }));
    expect(steps).toEqual(["translating", "writing_quiz"]);
    expect(result.data).toMatchObject({ title: "Vịnh Hạ Long", language: "vi", question_count: 5 });
    const vietnamese = noteSentences(HA_LONG_VI);
    for (const q of result.data.questions as QuizQuestion[]) {
      const answered = q.question.replace("_____", q.options[q.answer_index] ?? "");
      expect(vietnamese).toContain(answered);
    }
    expect(pdfText(fileOf(result, "pdf"))).toContain("Đáp án: Vịnh Hạ Long");
    await expect(run("quiz", params)).rejects.toMatchObject({ code: "translation_unavailable" });
  });

  it("has the chat model write exactly the asked count at the asked difficulty", async () => {
    const question = (n: number) => ({
      question: `Câu ${n}: Vịnh Hạ Long có bao nhiêu hòn đảo?`,
      options: [`${1600 + n}`, "200", "450", "4"],
      answer_index: 0,
      explanation: "Vịnh có khoảng 1600 hòn đảo.",
    });
    chatAnswer = JSON.stringify({ questions: [1, 2, 3].map(question) });
    const params = QuizParams.parse({ note: HA_LONG_VI, count: 3, difficulty: "hard" });
    const { result } = await run("quiz", params, withChat());
    const system = (chat.requests[0]?.body as { messages: { content: string }[] }).messages[0]?.content;
    expect(system).toContain("Write exactly 3 multiple-choice questions in Vietnamese");
    expect(system).toContain("Make it hard");
    expect(result.data).toMatchObject({ text_source: "llm", question_count: 3, difficulty: "hard" });
    expect(parseGift(await readFile(fileOf(result, "gift"), "utf8"))).toHaveLength(3);
  });
});

describe("quiz difficulty", () => {
  const sentences = noteSentences(HA_LONG_EN);
  const ranks = rankSentences(sentences);
  const quiz = (difficulty: "easy" | "hard") =>
    extractiveQuestions(sentences, "en", 5, HA_LONG_EN.note_id, difficulty);
  const meanRank = (questions: QuizQuestion[]) =>
    questions
      .map((q) => ranks[sentences.indexOf(q.question.replace("_____", q.options[q.answer_index] ?? ""))] ?? 1)
      .reduce((a, b) => a + b, 0) / questions.length;
  const meanDistance = (questions: QuizQuestion[]) => {
    const distances = questions.flatMap((q) =>
      q.options.flatMap((o, i) =>
        i === q.answer_index ? [] : [optionDistance(q.options[q.answer_index]!, o)],
      ),
    );
    return distances.reduce((a, b) => a + b, 0) / distances.length;
  };

  it("asks hard questions about less central sentences, with wrong options nearer the answer", () => {
    const [easy, hard] = [quiz("easy"), quiz("hard")];
    expect(easy).toHaveLength(5);
    expect(hard).toHaveLength(5);
    expect(meanRank(hard)).toBeLessThan(meanRank(easy));
    expect(meanDistance(hard)).toBeLessThan(meanDistance(easy) / 2);
    // A number's wrong options: far apart when easy, next to it when hard.
    const hardNumber = hard.find((q) => /^\d+$/.test(q.options[q.answer_index] ?? ""))!;
    const answer = Number(hardNumber.options[hardNumber.answer_index]);
    for (const option of hardNumber.options) expect(Math.abs(Number(option) / answer - 1)).toBeLessThan(0.2);
  });

  it("keeps the quiz video's questions (medium) unchanged by default", () => {
    expect(extractiveQuestions(sentences, "en", 5, "seed")).toEqual(
      extractiveQuestions(sentences, "en", 5, "seed", "medium"),
    );
  });
});

describe("study guide", () => {
  it("writes the guide as Markdown and PDF with its size in the data", async () => {
    const { result, steps } = await run("study_guide", StudyGuideParams.parse({ note: HA_LONG_EN }));
    expect(steps).toEqual(["writing_guide"]);
    expect(result.files.map((f) => [f.role, f.contentType])).toEqual([
      ["markdown", "text/markdown"],
      ["pdf", "application/pdf"],
    ]);
    const markdown = await readFile(fileOf(result, "markdown"), "utf8");
    const terms =
      markdown
        .split("## Key terms")[1]
        ?.split("\n## ")[0]
        ?.match(/^- \*\*/gm) ?? [];
    const questions =
      markdown
        .split("## Questions to think about")[1]
        ?.split("\n## ")[0]
        ?.match(/^\d+\. /gm) ?? [];
    expect(result.data).toMatchObject({
      note_id: HA_LONG_EN.note_id,
      title: "Ha Long Bay",
      language: "en",
      text_source: "extractive",
      term_count: terms.length,
      question_count: questions.length,
      has_timeline: true,
    });
    expect(terms.length).toBeGreaterThan(2);
    expect(markdown).toContain("- **1994**: UNESCO listed Ha Long Bay as a World Heritage Site in 1994.");
    expect(pdfText(fileOf(result, "pdf"))).toContain("Timeline");
    expect(completion("study_guide", result).kind).toBe("study_guide");
  });

  it("is written in the asked language from the translated note, its summary by the chat model when there is one", async () => {
    chatAnswer = JSON.stringify({ summary: "Vịnh Hạ Long có khoảng 1600 hòn đảo đá vôi." });
    const params = StudyGuideParams.parse({ note: HA_LONG_EN, language: "vi" });
    const { result, steps } = await run("study_guide", params, {
      ...withChat(),
      translate: haLongTranslator,
    });
    expect(steps).toEqual(["translating", "writing_guide"]);
    expect(result.data).toMatchObject({ title: "Vịnh Hạ Long", language: "vi", text_source: "llm" });
    const markdown = await readFile(fileOf(result, "markdown"), "utf8");
    expect(markdown).toContain("## Tóm tắt\n\nVịnh Hạ Long có khoảng 1600 hòn đảo đá vôi.");
    expect(markdown).toContain("- **năm 2019**: Hơn 4 triệu du khách đã đến Vịnh Hạ Long năm 2019.");
    const user = (chat.requests[0]?.body as { messages: { content: string }[] }).messages[1]?.content;
    expect(user).toContain("Đá vôi hình thành trong 500 triệu năm");
  });
});
