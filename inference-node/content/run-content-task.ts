/**
 * The one entry point the lease loop calls for a content task (shorts, quiz_video, slide): it
 * validates the job, makes a private temp folder, runs the kind's stages with progress reports, and
 * returns the result data and the files to upload.
 *
 * Temp files: on success the folder holds the output files and stays until the caller runs the
 * returned `cleanup()` (after uploading them); on failure or abort it is removed before rejecting.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContentJob, type ContentStep } from "../../protocol/content.ts";
import { ContentError } from "./errors.ts";
import { renderToolsFromEnv } from "./ffmpeg.ts";
import { llmConfigFromEnv } from "./llm.ts";
import { ProgressTracker, processSpeeds, type StageKey } from "./progress.ts";
import { runQuizVideo } from "./run-quiz.ts";
import { runShorts } from "./run-shorts.ts";
import { needsTranslation, runSlides } from "./run-slides.ts";
import type { TranslateFn } from "./script.ts";
import type { ContentDeps, ContentOutput, ContentTaskContext } from "./task-types.ts";
import { synthesizerFromEnv } from "./tts/index.ts";

export { ContentError } from "./errors.ts";
export type { ContentProgress } from "./progress.ts";
export type {
  ContentData,
  ContentDeps,
  ContentFile,
  ContentOutput,
  ContentTaskContext,
} from "./task-types.ts";

export interface ContentResult extends ContentOutput {
  /** The temp folder holding `files`. */
  workDir: string;
  /** Removes the temp folder and the files in it; call after uploading. */
  cleanup(): Promise<void>;
}

/**
 * The node's content dependencies from its environment: FFMPEG_PATH, VOXEDGE_TTS_URL/_API_KEY/_MODEL,
 * VOXEDGE_LLM_URL/_API_KEY/_MODEL, VOXEDGE_ESPEAK_PATH. `translate` is passed in (e.g. the node's
 * Translator's method).
 *
 * @example
 * const deps = contentDepsFromEnv(process.env, (text, from, to, signal) => translator.translate(text, from, to, signal));
 */
export function contentDepsFromEnv(env: NodeJS.ProcessEnv, translate?: TranslateFn): ContentDeps {
  const tools = renderToolsFromEnv(env);
  return {
    tools,
    synthesizer: synthesizerFromEnv(env, tools.ffmpeg),
    llm: llmConfigFromEnv(env),
    ...(translate ? { translate } : {}),
  };
}

function planFor(job: ContentJob, deps: ContentDeps): { step: ContentStep; key: StageKey; units: number }[] {
  const script: StageKey = deps.llm && job.kind !== "slide" ? "script_llm" : "script_extractive";
  const first =
    job.kind === "quiz_video" ? "writing_quiz" : job.kind === "slide" ? "building_slides" : "writing_script";
  const plan: { step: ContentStep; key: StageKey; units: number }[] = [
    { step: first, key: script, units: 1 },
  ];
  if (job.kind === "slide") {
    if (needsTranslation(job.params)) {
      plan.push({ step: "translating", key: "translate", units: job.params.note.content.length });
    }
    plan.push({ step: "building_slides", key: "slides", units: job.params.slide_count.max });
    return plan;
  }
  const seconds = job.kind === "shorts" ? job.params.clip_duration : 45;
  plan.push({ step: "synthesizing_voice", key: "tts", units: seconds * 15 });
  const audioOnly = job.kind === "shorts" && job.params.is_audio_only;
  plan.push(
    audioOnly
      ? { step: "rendering_audio", key: "render_audio", units: seconds }
      : { step: "rendering_video", key: "render_video", units: seconds },
  );
  return plan;
}

/**
 * Runs one content task.
 *
 * @example
 * const result = await runContentTask({ kind: "shorts", params }, deps, { signal, report: (u) => log.info(u) });
 * try { await upload(result.files); } finally { await result.cleanup(); }
 */
export async function runContentTask(
  job: { kind: string; params: unknown },
  deps: ContentDeps,
  ctx: ContentTaskContext,
): Promise<ContentResult> {
  const parsed = ContentJob.safeParse(job);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ContentError(
      "invalid_params",
      `invalid ${job.kind} params: ${issue ? `${issue.path.join(".")}: ${issue.message}` : "unknown"}`,
    );
  }
  ctx.signal.throwIfAborted();
  const workDir = await mkdtemp(join(deps.tmpRoot ?? tmpdir(), "voxedge-content-"));
  const cleanup = () => rm(workDir, { recursive: true, force: true });
  const tracker = new ProgressTracker(deps.speeds ?? processSpeeds, planFor(parsed.data, deps), ctx.report);
  try {
    const spec = parsed.data;
    const output =
      spec.kind === "shorts"
        ? await runShorts(spec.params, deps, ctx.signal, workDir, tracker)
        : spec.kind === "quiz_video"
          ? await runQuizVideo(spec.params, deps, ctx.signal, workDir, tracker)
          : await runSlides(spec.params, deps, ctx.signal, workDir, tracker);
    ctx.signal.throwIfAborted();
    return { ...output, workDir, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
