/** Quiz videos end to end with real espeak-ng and ffmpeg. */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StageSpeeds } from "../../inference-node/content/progress.ts";
import type { QuizQuestion } from "../../inference-node/content/quiz.ts";
import { quizNarration } from "../../inference-node/content/render-quiz.ts";
import { type ContentDeps, runContentTask } from "../../inference-node/content/run-content-task.ts";
import { foldForCompare } from "../../inference-node/content/text.ts";
import { quizTheme } from "../../inference-node/content/themes.ts";
import { EspeakSynthesizer } from "../../inference-node/content/tts/espeak.ts";
import { sidecarCues, spokenWords } from "./caption-sidecar-helpers.ts";
import { assEvents, ENGLISH_NOTE, probe, recordingContext, UNTITLED_NOTE_EN } from "./content-helpers.ts";

let root: string;

/** The RGB colour at (x, y) of a video frame, read by ffmpeg (a 2x2 block: yuv420p cannot crop to 1x1). */
function pixel(path: string, atSec: number, x: number, y: number): [number, number, number] {
  const rgb = execFileSync("ffmpeg", [
    "-v",
    "error",
    "-ss",
    atSec.toFixed(2),
    "-i",
    path,
    "-frames:v",
    "1",
    "-vf",
    `crop=2:2:${x - (x % 2)}:${y - (y % 2)}`,
    "-f",
    "rawvideo",
    "-pix_fmt",
    "rgb24",
    "pipe:1",
  ]);
  return [rgb[0] ?? 0, rgb[1] ?? 0, rgb[2] ?? 0];
}

function colorDistance(rgb: [number, number, number], hex: string): number {
  const want = [0, 2, 4].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
  return Math.max(...rgb.map((v, i) => Math.abs(v - (want[i] ?? 0))));
}
const deps = (): ContentDeps => ({
  synthesizer: new EspeakSynthesizer(),
  tools: { ffmpeg: "ffmpeg" },
  llm: null,
  speeds: new StageSpeeds(),
  tmpRoot: root,
});

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "content-quiz-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("quiz video", () => {
  it("names a note sent without a title by what it is about, on the intro it says, and keeps the title on screen", async () => {
    const { title } = UNTITLED_NOTE_EN;
    const result = await runContentTask(
      {
        kind: "quiz_video",
        params: {
          note: UNTITLED_NOTE_EN,
          voice_id: "en-male",
          bg_id: "ocean",
          template_id: "quiz-neon",
        },
      },
      deps(),
      recordingContext().ctx,
    );
    try {
      const cues = sidecarCues(result.files.find((f) => f.role === "srt")!.path);
      expect(cues[0]?.text.trim()).toBe("Quiz time: photosynthesis.");
      expect(result.data.title).toBe(title);
    } finally {
      await result.cleanup();
    }
  });

  it("renders three narrated questions with countdown and reveal, options never duplicated", async () => {
    const { reports, ctx } = recordingContext();
    const result = await runContentTask(
      {
        kind: "quiz_video",
        params: { note: ENGLISH_NOTE, voice_id: "en-male", bg_id: "ocean", template_id: "quiz-neon" },
      },
      deps(),
      ctx,
    );
    try {
      const questions = result.data.questions as QuizQuestion[];
      expect(result.data.question_count).toBe(3);
      expect(questions).toHaveLength(3);
      for (const q of questions) {
        expect(new Set(q.options.map(foldForCompare)).size).toBe(4);
        expect(q.answer_index).toBeGreaterThanOrEqual(0);
        expect(q.answer_index).toBeLessThan(4);
      }

      const media = probe(result.files[0]!.path);
      expect(media.streams.map((s) => `${s.codec_type}:${s.codec_name}`).sort()).toEqual([
        "audio:aac",
        "video:h264",
      ]);
      expect(media.streams.find((s) => s.codec_type === "video")).toMatchObject({
        width: 1080,
        height: 1920,
      });
      // Intro + per question: narration, a 3 s countdown, the reveal.
      expect(media.duration).toBeGreaterThan(3 * 3 + 5);
      expect(media.duration).toBeLessThan(90);
      expect(Math.abs((result.data.duration ?? 0) - media.duration)).toBeLessThan(0.15);

      // The cards: every option drawn, a 3-2-1 countdown per question, the correct option revealed.
      const events = assEvents(await readFile(join(result.workDir, "quiz.ass"), "utf8"));
      const counts = events.filter((e) => e.style === "Count").map((e) => e.text.replace(/\{[^}]*}/g, ""));
      expect(counts).toEqual(["3", "2", "1", "3", "2", "1", "3", "2", "1"]);
      for (const q of questions) {
        const shown = events
          .filter((e) => e.style === "OptionGrid" || e.style === "Option")
          .map((e) => e.text);
        for (const option of q.options) expect(shown.some((t) => t.includes(option))).toBe(true);
      }
      // In the video itself, the correct option's card turns the template's colour at the reveal.
      const first = questions[0]!;
      const reveal = events.find((e) => e.style === "Explain")!;
      const label = `${"ABCD"[first.answer_index]}. ${first.options[first.answer_index]}`;
      const card = events.find(
        (e) => e.style === "OptionGrid" && e.start === reveal.start && e.text.endsWith(label),
      )!;
      const [x, y] = /\\pos\((\d+),(\d+)\)/.exec(card.text)!.slice(1).map(Number) as [number, number];
      const before = pixel(result.files[0]!.path, reveal.start - 1.2, x, y - 90);
      const after = pixel(result.files[0]!.path, reveal.start + 0.6, x, y - 90);
      expect(colorDistance(after, quizTheme("quiz-neon").correct)).toBeLessThan(40);
      expect(colorDistance(before, quizTheme("quiz-neon").option)).toBeLessThan(40);

      // The narration's captions beside the video: ffmpeg parses them, every cue within the video,
      // and together they say what was narrated, in order.
      expect(result.files.map((f) => [f.role, f.contentType])).toEqual([
        ["video", "video/mp4"],
        ["srt", "application/x-subrip"],
        ["vtt", "text/vtt"],
      ]);
      const cues = sidecarCues(result.files[2]!.path);
      expect(sidecarCues(result.files[1]!.path)).toEqual(cues);
      for (const cue of cues) {
        expect(cue.end).toBeGreaterThan(cue.start);
        expect(cue.end).toBeLessThanOrEqual(media.duration + 0.01);
      }
      expect(spokenWords(cues.map((cue) => cue.text).join(" "))).toEqual(
        spokenWords(quizNarration(String(result.data.title), questions, "en").join(" ")),
      );

      const progress = reports.map((r) => r.progress);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      expect(reports.map((r) => r.step)).toEqual(
        expect.arrayContaining(["writing_quiz", "synthesizing_voice", "rendering_video"]),
      );
    } finally {
      await result.cleanup();
    }
  });
});
