/**
 * Part of group `content`: the quiz's and the study guide's render time for a 600-word note, without a
 * chat model (extractive text), against their 5 s target each.
 */
import type { ContentDeps } from "../inference-node/content/run-content-task.ts";
import { runContentTask } from "../inference-node/content/run-content-task.ts";
import { splitWords } from "../inference-node/content/text.ts";
import type { ContentJob } from "../protocol/content.ts";
import { ENGLISH_NOTE, HISTORY_NOTE_EN, UNDATED_NOTE } from "../test/node/content-helpers.ts";
import { HA_LONG_EN } from "../test/node/fixtures/studio-notes-quiz.ts";
import { timeMs } from "./stats.ts";
import { type BenchResult, result } from "./types.ts";

/** Each artifact's target without a chat model. */
const TARGET_MS = 5000;

/** The test notes joined in turn until there are 600 words: numbers, names, definitions and dates. */
function noteOf(words: number) {
  const sources = [ENGLISH_NOTE, HISTORY_NOTE_EN, UNDATED_NOTE, HA_LONG_EN];
  const parts: string[] = [];
  while (splitWords(parts.join("\n\n")).length < words) {
    parts.push(sources[parts.length % sources.length]?.content ?? "");
  }
  return {
    note_id: "bench-600-words",
    title: "Rivers, history and plants",
    language: "en",
    content: parts.join("\n\n"),
  };
}
const NOTE_600 = noteOf(600);

async function timed(job: ContentJob, deps: ContentDeps): Promise<number> {
  const signal = new AbortController().signal;
  return timeMs(async () => {
    const out = await runContentTask(job, deps, { signal, report: () => {} });
    await out.cleanup();
  });
}

/**
 * @example
 * results.push(...(await quizAndGuideBench(deps)));
 */
export async function quizAndGuideBench(deps: ContentDeps): Promise<BenchResult[]> {
  const words = splitWords(NOTE_600.content).length;
  const quiz = await timed(
    { kind: "quiz", params: { note: NOTE_600, count: 10, difficulty: "medium", language: null } },
    deps,
  );
  const guide = await timed({ kind: "study_guide", params: { note: NOTE_600, language: null } }, deps);
  return [
    result(
      "content.quiz_10q_600w_ms",
      quiz,
      TARGET_MS,
      "ms",
      `${words}-word note, 10 questions, JSON + Moodle XML + GIFT + PDF, extractive; ratio against the 5 s target`,
    ),
    result(
      "content.study_guide_600w_ms",
      guide,
      TARGET_MS,
      "ms",
      `${words}-word note, Markdown + PDF, extractive; ratio against the 5 s target`,
    ),
  ];
}
