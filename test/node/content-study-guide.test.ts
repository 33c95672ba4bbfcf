/**
 * Study guides from English and Vietnamese notes: sections, key terms with their defining
 * sentences, a sorted timeline only where the note has dates, Markdown and a PDF read back by
 * poppler (diacritics exact), the LLM summary against a real HTTP server on 127.0.0.1, and the
 * typed failure for a note with nothing to study.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContentError } from "../../inference-node/content/errors.ts";
import { noteSentences } from "../../inference-node/content/script.ts";
import { buildStudyGuide, type StudyGuide } from "../../inference-node/content/study-guide/guide.ts";
import { studyGuideMarkdown } from "../../inference-node/content/study-guide/markdown.ts";
import { writeStudyGuidePdf } from "../../inference-node/content/study-guide/pdf.ts";
import { datesIn } from "../../inference-node/content/study-guide/timeline.ts";
import type { NoteSnapshot } from "../../protocol/content.ts";
import {
  ENGLISH_NOTE,
  HISTORY_NOTE_EN,
  HISTORY_NOTE_VI,
  pdfText,
  UNDATED_NOTE,
  VIETNAMESE_NOTE,
} from "./content-helpers.ts";
import { type FakeServer, sendJson, startServer } from "./translate-fake-servers.ts";

const signal = new AbortController().signal;
const extractive = (note: NoteSnapshot) => buildStudyGuide(note, { llm: null }, signal);
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "study-guide-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("timeline", () => {
  it("reads English and Vietnamese dates, and not numbers that are no dates", () => {
    expect(datesIn("Saigon fell on April 30, 1975, and the country was reunified in 1976.")).toEqual([
      { date: "April 30, 1975", year: 1975, month: 4, day: 30 },
      { date: "1976", year: 1976, month: 0, day: 0 },
    ]);
    expect(datesIn("Tuyên ngôn được đọc ngày 2 tháng 9 năm 1945 tại Ba Đình.")).toEqual([
      { date: "ngày 2 tháng 9 năm 1945", year: 1945, month: 9, day: 2 },
    ]);
    expect(
      datesIn("It flows about 4,350 kilometres; the catfish weighs 300 kilograms and costs 1.500 đồng."),
    ).toEqual([]);
  });

  it("sorts a note's dates whatever order the note tells them in", async () => {
    const en = await extractive(HISTORY_NOTE_EN);
    expect(en.timeline.map((e) => e.date)).toEqual([
      "August 1945",
      "2 September 1945",
      "1954",
      "April 30, 1975",
      "1976",
      "1986",
      "2007",
    ]);
    const vi = await extractive(HISTORY_NOTE_VI);
    expect(vi.timeline.map((e) => e.date)).toEqual([
      "tháng 8 năm 1945",
      "ngày 2 tháng 9 năm 1945",
      "năm 1954",
      "Ngày 30 tháng 4 năm 1975",
      "năm 1986",
      "năm 2007",
    ]);
    const sentences = noteSentences(HISTORY_NOTE_VI);
    for (const entry of vi.timeline) {
      expect(sentences).toContain(entry.event);
      expect(entry.event).toContain(entry.date);
    }
  });

  it("is empty for a note without dates, and the outputs leave the section out", async () => {
    const guide = await extractive(UNDATED_NOTE);
    expect(guide.timeline).toEqual([]);
    expect(studyGuideMarkdown(guide)).not.toContain("## Timeline");
    const file = join(dir, "undated.pdf");
    await writeStudyGuidePdf(guide, file);
    const text = oneLine(pdfText(file));
    expect(text).toContain("Questions to think about");
    expect(text).not.toContain("Timeline");
  });
});

describe("study guide", () => {
  it("summarises with the note's own sentences in note order and defines its key terms", async () => {
    for (const note of [ENGLISH_NOTE, VIETNAMESE_NOTE, HISTORY_NOTE_EN, HISTORY_NOTE_VI, UNDATED_NOTE]) {
      const guide = await extractive(note);
      const sentences = noteSentences(note);
      const positions = guide.summary.map((s) => sentences.indexOf(s));
      expect(positions.every((p) => p >= 0)).toBe(true);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
      expect(guide.summary_source).toBe("extractive");
      expect(guide.key_terms.length).toBeGreaterThan(0);
      for (const { term, definition } of guide.key_terms) expect(definition).toContain(term);
      expect(guide.questions.length).toBeGreaterThan(0);
    }
    const terms = (guide: StudyGuide) =>
      Object.fromEntries(guide.key_terms.map((t) => [t.term, t.definition]));
    expect(terms(await extractive(UNDATED_NOTE))).toMatchObject({
      Photosynthesis: "Photosynthesis is the process by which plants turn light into chemical energy.",
      Chlorophyll: "Chlorophyll is the green pigment that absorbs the light.",
    });
    expect(terms(await extractive(HISTORY_NOTE_VI))).toMatchObject({
      "Đổi Mới": "Đổi Mới là công cuộc cải cách kinh tế bắt đầu từ năm 1986.",
      "Cách mạng tháng Tám":
        "Cách mạng tháng Tám là cuộc tổng khởi nghĩa giành chính quyền vào tháng 8 năm 1945.",
    });
  });

  it("writes Markdown and a PDF with every section, Vietnamese diacritics exact", async () => {
    const guide = await extractive(HISTORY_NOTE_VI);
    const markdown = studyGuideMarkdown(guide);
    for (const section of ["Tóm tắt", "Thuật ngữ chính", "Câu hỏi suy ngẫm", "Dòng thời gian"])
      expect(markdown).toContain(`## ${section}`);
    expect(markdown).toContain("- **ngày 2 tháng 9 năm 1945**: Chủ tịch Hồ Chí Minh đọc Tuyên ngôn Độc lập");
    const file = join(dir, "vi.pdf");
    await writeStudyGuidePdf(guide, file);
    const text = oneLine(pdfText(file));
    const order = [
      "Việt Nam thế kỷ 20",
      "Tóm tắt",
      "Thuật ngữ chính",
      "Câu hỏi suy ngẫm",
      "Dòng thời gian",
    ].map((heading) => text.indexOf(heading));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    for (const { term, definition } of guide.key_terms) expect(text).toContain(`${term}: ${definition}`);
    for (const question of guide.questions) expect(text).toContain(question);
    for (const entry of guide.timeline) expect(text).toContain(`${entry.date}: ${entry.event}`);
    expect(text).toContain(guide.summary.join(" "));
  });

  it("fails note_too_short, a ContentError, for a note with nothing to study", async () => {
    for (const content of ["", "   \n\n", "# Heading only\n## Another"]) {
      const failure = await buildStudyGuide({ ...ENGLISH_NOTE, content }, { llm: null }, signal).catch(
        (e) => e,
      );
      expect(failure).toBeInstanceOf(ContentError);
      expect(failure).toMatchObject({ code: "note_too_short" });
    }
  });
});

describe("study guide with an LLM configured", () => {
  let server: FakeServer;
  let answer: string;
  beforeAll(async () => {
    server = await startServer((req, res) => {
      if (req.path !== "/v1/chat/completions") return sendJson(res, 404, { error: { message: "not found" } });
      sendJson(res, 200, {
        id: "chatcmpl-1",
        object: "chat.completion",
        choices: [{ index: 0, message: { role: "assistant", content: answer }, finish_reason: "stop" }],
      });
    });
  });
  afterAll(async () => {
    await server.close();
  });
  const config = () => ({ url: server.url, model: "local-model" });

  it("asks for a summary in the note's language and uses the model's sentences", async () => {
    answer = '```json\n{"summary": "Việt Nam độc lập năm 1945. Đất nước thống nhất năm 1975."}\n```';
    const guide = await buildStudyGuide(HISTORY_NOTE_VI, { llm: config() }, signal);
    const body = server.requests.at(-1)?.body as { messages: { content: string }[] };
    expect(body.messages[0]?.content).toContain("Vietnamese");
    expect(body.messages[1]?.content).toContain("Cách mạng tháng Tám");
    expect(guide.summary).toEqual(["Việt Nam độc lập năm 1945.", "Đất nước thống nhất năm 1975."]);
    expect(guide.summary_source).toBe("llm");
    expect(guide.timeline).toHaveLength(6);
  });

  it("fails llm_failed when the model's answer is not the summary's shape", async () => {
    answer = '{"abstract": "no summary field"}';
    await expect(buildStudyGuide(HISTORY_NOTE_EN, { llm: config() }, signal)).rejects.toMatchObject({
      code: "llm_failed",
    });
  });
});
