/**
 * The one entry point the lease loop calls for a content task (any content kind): it validates the
 * job, makes a private temp folder, runs the kind's stages (content-kinds.ts) with progress reports,
 * and returns the result data and the files to upload.
 *
 * Temp files: on success the folder holds the output files and stays until the caller runs the
 * returned `cleanup()` (after uploading them); on failure or abort it is removed before rejecting.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContentJob } from "../../protocol/content.ts";
import type { ContentKind } from "../../protocol/task.ts";
import { CONTENT_KIND_STAGES, type ContentKindStages } from "./content-kinds.ts";
import { ContentError } from "./errors.ts";
import { renderToolsFromEnv } from "./ffmpeg.ts";
import { llmConfigFromEnv } from "./llm.ts";
import { ProgressTracker, processSpeeds } from "./progress.ts";
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
  // One kind's stages take that kind's params: the job was parsed as a pair, so the kind and params match.
  const stages = CONTENT_KIND_STAGES[parsed.data.kind] as ContentKindStages<ContentKind>;
  const { params } = parsed.data;
  const tracker = new ProgressTracker(deps.speeds ?? processSpeeds, stages.plan(params, deps), ctx.report);
  try {
    const output = await stages.run(params, deps, ctx.signal, workDir, tracker);
    ctx.signal.throwIfAborted();
    return { ...output, workDir, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
