/**
 * ffmpeg for content rendering: the node's one ffmpeg (media/ffmpeg-path.ts: FFMPEG_PATH, else
 * Debian's on PATH, 5.0 or newer), which has the `gradients`, `scroll` and libass filters this needs.
 * Renders read only files the node generated itself; their reads still go through the file and pipe
 * protocols alone (`-protocol_whitelist` before each file input).
 */
import { LOCAL_INPUT_ARGS } from "../media/container-policy.ts";
import { ffmpegPath } from "../media/ffmpeg-path.ts";
import { BOLD_FONT_DIR, filterPath } from "./fonts.ts";
import { runTool } from "./process.ts";

export interface RenderTools {
  ffmpeg: string;
}

/** The tools from the environment: FFMPEG_PATH, else `ffmpeg` on PATH. */
export function renderToolsFromEnv(env: NodeJS.ProcessEnv): RenderTools {
  return { ffmpeg: ffmpegPath(env) };
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
/**
 * Frames per second of rendered videos. Text is still and backgrounds drift slowly, so 15 looks
 * smooth, and every frame costs a full-frame overlay and encode: 24 fps took ~1.5x the CPU.
 */
export const VIDEO_FPS = 15;

export const H264_ARGS = ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "23", "-pix_fmt", "yuv420p"];
export const AAC_ARGS = ["-c:a", "aac", "-b:a", "128k", "-ar", "44100"];

/** One vertical video: a generated background, an ASS overlay, a narration. */
export interface Composition {
  /** lavfi graph of the background (backgroundGraph). */
  background: string;
  wavPath: string;
  assPath: string;
  /** The video's length; the narration is padded with silence to it when `padAudio`. */
  durationSec: number;
  padAudio: boolean;
  out: string;
}

/**
 * ffmpeg arguments that render a composition in one pass: the overlay burned onto the background,
 * H.264 (ultrafast) and AAC, the moov atom first so players start before the whole file arrives.
 *
 * @example await runFfmpeg(tools, compositionArgs({ background, wavPath, assPath, durationSec, padAudio: true, out }), run)
 */
export function compositionArgs(c: Composition): string[] {
  const overlay = `[0:v]ass=${filterPath(c.assPath)}:fontsdir=${filterPath(BOLD_FONT_DIR)}[v]`;
  return [
    "-f",
    "lavfi",
    "-i",
    c.background,
    ...LOCAL_INPUT_ARGS,
    "-i",
    c.wavPath,
    "-filter_complex",
    c.padAudio ? `${overlay};[1:a]apad[a]` : overlay,
    "-map",
    "[v]",
    "-map",
    c.padAudio ? "[a]" : "1:a",
    "-t",
    c.durationSec.toFixed(3),
    "-r",
    String(VIDEO_FPS),
    ...H264_ARGS,
    ...AAC_ARGS,
    "-movflags",
    "+faststart",
    c.out,
  ];
}
