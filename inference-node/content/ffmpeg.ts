/**
 * ffmpeg for content rendering. Debian's ffmpeg on PATH by default (FFMPEG_PATH overrides, as for
 * the rest of the node): it has the `gradients`, `scroll` and libass filters this needs, which the
 * 2018 static build of @ffmpeg-installer/ffmpeg (media/ffmpeg-path.ts's default) lacks, and runs
 * ~1.5x faster (LOCAL-DEV.md).
 */
import { runTool } from "./process.ts";

export interface RenderTools {
  ffmpeg: string;
}

/** The tools from the environment: FFMPEG_PATH, else `ffmpeg` on PATH. */
export function renderToolsFromEnv(env: NodeJS.ProcessEnv): RenderTools {
  return { ffmpeg: env.FFMPEG_PATH?.trim() || "ffmpeg" };
}

export interface FfmpegRun {
  signal: AbortSignal;
  /** Output length, to turn ffmpeg's out_time into a fraction. */
  durationSec?: number;
  /** 0..1 as the output advances. */
  onProgress?: (fraction: number) => void;
}

/**
 * Runs ffmpeg with `args` (input and output included), reporting progress from `-progress pipe:1`.
 * Rejects with ContentError `renderer_unavailable` / `render_failed`, or the signal's reason.
 *
 * @example
 * await runFfmpeg(tools, ["-i", "in.wav", "out.m4a"], { signal, durationSec: 30, onProgress: console.log });
 */
export async function runFfmpeg(tools: RenderTools, args: readonly string[], run: FfmpegRun): Promise<void> {
  let buffered = "";
  await runTool(
    tools.ffmpeg,
    ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-progress", "pipe:1", "-nostats", ...args],
    {
      signal: run.signal,
      missingCode: "renderer_unavailable",
      failedCode: "render_failed",
      onStdout: (chunk) => {
        buffered += chunk;
        const lines = buffered.split("\n");
        buffered = lines.pop() ?? "";
        for (const line of lines) {
          const match = /^out_time_us=(\d+)/.exec(line);
          if (match && run.durationSec && run.onProgress) {
            run.onProgress(Math.min(1, Number(match[1]) / 1e6 / run.durationSec));
          }
        }
      },
    },
  );
  run.onProgress?.(1);
}

/**
 * x264 settings shared by every video, yuv420p for every player. `ultrafast`: on 2 cores `veryfast`
 * took ~2x the CPU for the same frames (bench/content.ts), for files about half the size.
 */
export const H264_ARGS = ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "23", "-pix_fmt", "yuv420p"];
export const AAC_ARGS = ["-c:a", "aac", "-b:a", "128k", "-ar", "44100"];
