/**
 * The audio and video overviews' part of group `content`: wall time of each render for a 600-word
 * note, against its target. A brief podcast's target is half its own audio length (ratio = render /
 * (0.5 × audio), target <= 1.0); a deep dive and a video overview are compared with their own length
 * (ratio = render / real time), to show what a node spends per minute of overview.
 */
import { type ContentDeps, runContentTask } from "../inference-node/content/run-content-task.ts";
import type { ContentJob } from "../protocol/content.ts";
import { STUDIO_NOTE_EN_600 } from "../test/node/fixtures/studio-notes-audio.ts";
import { type BenchResult, result } from "./types.ts";

/** Wall time of one render, its media's length and the seconds of each reported step. */
async function timed(job: ContentJob, deps: ContentDeps) {
  const marks: [string, number][] = [];
  const started = performance.now();
  const out = await runContentTask(job, deps, {
    signal: new AbortController().signal,
    report: (u) => {
      if (marks.at(-1)?.[0] !== u.step) marks.push([u.step, performance.now()]);
    },
  });
  const ended = performance.now();
  await out.cleanup();
  const steps = marks
    .map(([step, at], i) => `${step} ${(((marks[i + 1]?.[1] ?? ended) - at) / 1000).toFixed(1)} s`)
    .join(", ");
  return { wallMs: ended - started, duration: out.data.duration ?? 0, steps };
}

/**
 * The overviews' figures, rendered with the group's deps.
 *
 * @example results.push(...(await overviewBench(deps)));
 */
export async function overviewBench(deps: ContentDeps): Promise<BenchResult[]> {
  const note = STUDIO_NOTE_EN_600;
  const podcast = { note, length: "default", voice_id: null, voice_id_2: null, language: null } as const;
  const brief = await timed({ kind: "podcast", params: { ...podcast, format: "brief" } }, deps);
  const deep = await timed({ kind: "podcast", params: { ...podcast, format: "deep_dive" } }, deps);
  const video = await timed(
    {
      kind: "video_overview",
      params: { note, template_id: "slide-clean", voice_id: null, language: null, community: false },
    },
    deps,
  );
  return [
    result(
      "content.podcast_brief_ms",
      brief.wallMs,
      brief.duration * 500,
      "ms",
      `600-word note; ${brief.duration.toFixed(1)} s of audio; reference = half of it (target ratio <= 1.0); ${brief.steps}`,
    ),
    result(
      "content.podcast_deep_dive_ms",
      deep.wallMs,
      deep.duration * 1000,
      "ms",
      `600-word note; ${deep.duration.toFixed(1)} s of two-host audio; ratio = render/real time; ${deep.steps}`,
    ),
    result(
      "content.video_overview_ms",
      video.wallMs,
      video.duration * 1000,
      "ms",
      `600-word note; ${video.duration.toFixed(1)} s 1920x1080 video; ratio = render/real time; ${video.steps}`,
    ),
  ];
}
