/**
 * Group `content`: wall time of the content engine on this machine, with each stage's share (from
 * the engine's own step reports), for a 30 s short, a 3-question quiz video and an 8-slide deck.
 * Videos are compared with their own duration (ratio = render time / video time, target <= 1.0);
 * the deck with its 5 s target. The short's final render is also timed against the settings it
 * replaced (full-size background, 24 fps, x264 veryfast), interleaved, from the same captions and
 * narration, to show what each choice buys.
 */
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { backgroundGraph } from "../inference-node/content/backgrounds.ts";
import { AAC_ARGS, compositionArgs, runFfmpeg, VIDEO_FPS } from "../inference-node/content/ffmpeg.ts";
import { BOLD_FONT_DIR, filterPath } from "../inference-node/content/fonts.ts";
import { StageSpeeds } from "../inference-node/content/progress.ts";
import { type ContentDeps, runContentTask } from "../inference-node/content/run-content-task.ts";
import { EspeakSynthesizer } from "../inference-node/content/tts/espeak.ts";
import type { ContentJob } from "../protocol/content.ts";
import { ENGLISH_NOTE } from "../test/node/content-helpers.ts";
import { overviewBench } from "./content-audio.ts";
import { studyCardsBench } from "./content-cards.ts";
import { notetrContentBench } from "./content-notetr.ts";
import { quizAndGuideBench } from "./content-quiz.ts";
import { median, timeMs } from "./stats.ts";
import { type BenchGroup, type BenchResult, result } from "./types.ts";

const ROUNDS = 2;
/** The settings comparison renders the short's first seconds only (the old settings are slow). */
const COMPARE_SEC = 10;

/** Long enough to fill 30 s of narration. */
const BENCH_NOTE = {
  ...ENGLISH_NOTE,
  content: `${ENGLISH_NOTE.content}

# People
Fishing families along the Tonle Sap lake catch most of the protein that Cambodians eat. Floating markets in the delta trade fruit, rice and fish every morning.
The river is also a highway: boats carry goods between Phnom Penh and the coast. Tourism grows each year in Luang Prabang and Can Tho.`,
};

interface Timed {
  wallMs: number;
  /** Seconds spent in each reported step, in order. */
  steps: [string, number][];
  duration: number;
  workDir: string;
  cleanup: () => Promise<void>;
}

async function timedRun(job: ContentJob, deps: ContentDeps): Promise<Timed> {
  const marks: [string, number][] = [];
  const started = performance.now();
  const out = await runContentTask(job, deps, {
    signal: new AbortController().signal,
    report: (u) => {
      if (marks.at(-1)?.[0] !== u.step) marks.push([u.step, performance.now()]);
    },
  });
  const ended = performance.now();
  const steps = marks.map(([step, at], i): [string, number] => [
    step,
    ((marks[i + 1]?.[1] ?? ended) - at) / 1000,
  ]);
  return {
    wallMs: ended - started,
    steps,
    duration: out.data.duration ?? 0,
    workDir: out.workDir,
    cleanup: out.cleanup,
  };
}

function shares(run: Timed): string {
  const total = run.wallMs / 1000;
  return run.steps
    .map(([step, s]) => `${step} ${s.toFixed(2)} s (${((s / total) * 100).toFixed(0)}%)`)
    .join(", ");
}

/** Render args of the settings the engine replaced: full-size background, 24 fps, x264 veryfast. */
function naiveArgs(dir: string, duration: number): string[] {
  const background = `gradients=s=1080x1920:r=24:d=${duration}:type=linear:speed=0.01:nb_colors=4:c0=0xff7e5f:c1=0xfeb47b:c2=0x86377b:c3=0x2b1055`;
  return [
    "-f",
    "lavfi",
    "-i",
    background,
    "-i",
    join(dir, "narration.wav"),
    "-filter_complex",
    `[0:v]ass=${filterPath(join(dir, "short.ass"))}:fontsdir=${filterPath(BOLD_FONT_DIR)}[v];[1:a]apad[a]`,
    "-map",
    "[v]",
    "-map",
    "[a]",
    "-t",
    duration.toFixed(3),
    "-r",
    "24",
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    "-tune",
    "stillimage",
    "-crf",
    "24",
    "-pix_fmt",
    "yuv420p",
    ...AAC_ARGS,
    join(dir, "naive.mp4"),
  ];
}

function oursArgs(dir: string, duration: number): string[] {
  const background = backgroundGraph("sunset", {
    width: 1080,
    height: 1920,
    fps: VIDEO_FPS,
    durationSec: duration,
  });
  return compositionArgs({
    background,
    wavPath: join(dir, "narration.wav"),
    assPath: join(dir, "short.ass"),
    durationSec: duration,
    padAudio: true,
    out: join(dir, "ours.mp4"),
  });
}

export const content: BenchGroup = async () => {
  const speeds = new StageSpeeds();
  const tmpRoot = await mkdtemp(join(tmpdir(), "bench-content-"));
  const deps: ContentDeps = {
    synthesizer: new EspeakSynthesizer(),
    tools: { ffmpeg: "ffmpeg" },
    llm: null,
    speeds,
    tmpRoot,
  };
  const results: BenchResult[] = [];
  try {
    const short = await timedRun(
      {
        kind: "shorts",
        params: {
          note: BENCH_NOTE,
          voice_id: "en-female",
          clip_duration: 30,
          is_audio_only: false,
          bg_id: "sunset",
          aspect: "9:16",
        },
      },
      deps,
    );
    results.push(
      result(
        "content.short_30s_ms",
        short.wallMs,
        short.duration * 1000,
        "ms",
        `${short.duration.toFixed(1)} s video; ratio = render/real time (target <= 1.0); ${shares(short)}`,
      ),
    );
    const kept = join(tmpRoot, "short-kept");
    await cp(short.workDir, kept, { recursive: true });
    await short.cleanup();

    const quiz = await timedRun(
      {
        kind: "quiz_video",
        params: { note: BENCH_NOTE, voice_id: "en-male", bg_id: "grid", template_id: "quiz-classic" },
      },
      deps,
    );
    results.push(
      result(
        "content.quiz_3q_ms",
        quiz.wallMs,
        quiz.duration * 1000,
        "ms",
        `${quiz.duration.toFixed(1)} s video, 3 questions; ratio = render/real time; ${shares(quiz)}`,
      ),
    );
    await quiz.cleanup();

    const deck = await timedRun(
      {
        kind: "slide",
        params: {
          note: BENCH_NOTE,
          template_id: "slide-clean",
          language: null,
          slide_count: { min: 8, max: 8 },
          community: false,
        },
      },
      deps,
    );
    results.push(
      result(
        "content.slides_8_ms",
        deck.wallMs,
        5000,
        "ms",
        `8-slide PPTX + PDF; ratio against the 5 s target; ${shares(deck)}`,
      ),
    );
    await deck.cleanup();
    results.push(...(await quizAndGuideBench(deps)));
    results.push(...(await studyCardsBench(deps)));
    results.push(...(await overviewBench(deps)));
    results.push(...(await notetrContentBench(deps, BENCH_NOTE)));

    // The final render alone: current settings against the replaced ones, interleaved.
    const ours: number[] = [];
    const naive: number[] = [];
    const signal = new AbortController().signal;
    for (let round = 0; round < ROUNDS; round += 1) {
      ours.push(
        await timeMs(() => runFfmpeg({ ffmpeg: "ffmpeg" }, oursArgs(kept, short.duration), { signal })),
      );
      naive.push(
        await timeMs(() => runFfmpeg({ ffmpeg: "ffmpeg" }, naiveArgs(kept, short.duration), { signal })),
      );
    }
    results.push(
      result(
        "content.short_render_vs_naive_ms",
        median(ours),
        median(naive),
        "ms",
        `ffmpeg pass only, first ${COMPARE_SEC} s of the short, median of ${ROUNDS}; reference = full-size gradients, 24 fps, veryfast + stillimage`,
      ),
    );
  } finally {
    await rm(tmpRoot, { recursive: true, force: true });
  }
  return results;
};
