/**
 * The short itself: a 1080x1920 H.264/AAC MP4 (generated background, title card, word-highlighted
 * captions, narration) in one ffmpeg pass, or with `is_audio_only` just the narration as AAC in M4A.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { LOCAL_INPUT_ARGS } from "../media/container-policy.ts";
import { backgroundGraph } from "./backgrounds.ts";
import { SHORT_HEIGHT, SHORT_WIDTH, shortCaptions } from "./captions.ts";
import { AAC_ARGS, compositionArgs, type RenderTools, runFfmpeg, VIDEO_FPS } from "./ffmpeg.ts";
import type { Speech } from "./tts/synthesizer.ts";

/** Quiet end after the last word, within clip_duration. */
export const END_PAD_SEC = 0.6;

export interface ShortRender {
  title: string;
  /** The narration, title first. */
  speech: Speech;
  /** How many of speech.words are the title. */
  titleWordCount: number;
  bgId: string;
  clipDurationSec: number;
  audioOnly: boolean;
  workDir: string;
  tools: RenderTools;
  signal: AbortSignal;
  onProgress?: (fraction: number) => void;
}

export interface RenderedMedia {
  path: string;
  contentType: string;
  durationSec: number;
  /** The captions file (videos only). */
  assPath?: string;
}

/**
 * Renders the short.
 *
 * @example
 * const media = await renderShort({ title, speech, titleWordCount: 2, bgId: "aurora", clipDurationSec: 30, audioOnly: false, workDir, tools, signal });
 */
export async function renderShort(input: ShortRender): Promise<RenderedMedia> {
  const duration = Math.min(input.clipDurationSec, input.speech.durationSec + END_PAD_SEC);
  if (input.audioOnly) {
    const path = join(input.workDir, "short.m4a");
    await runFfmpeg(
      input.tools,
      [
        ...LOCAL_INPUT_ARGS,
        "-i",
        input.speech.wavPath,
        "-af",
        `apad=whole_dur=${duration.toFixed(3)}`,
        "-t",
        duration.toFixed(3),
        ...AAC_ARGS,
        "-movflags",
        "+faststart",
        path,
      ],
      {
        signal: input.signal,
        durationSec: duration,
        ...(input.onProgress ? { onProgress: input.onProgress } : {}),
      },
    );
    return { path, contentType: "audio/mp4", durationSec: duration };
  }

  const titleWords = input.speech.words.slice(0, input.titleWordCount);
  const assPath = join(input.workDir, "short.ass");
  await writeFile(
    assPath,
    shortCaptions({
      title: input.title,
      titleEndSec: (titleWords.at(-1)?.end ?? 0) + 0.15,
      words: input.speech.words.slice(input.titleWordCount),
      videoEndSec: duration,
    }),
  );
  const path = join(input.workDir, "short.mp4");
  const background = backgroundGraph(input.bgId, {
    width: SHORT_WIDTH,
    height: SHORT_HEIGHT,
    fps: VIDEO_FPS,
    durationSec: duration,
  });
  await runFfmpeg(
    input.tools,
    compositionArgs({
      background,
      wavPath: input.speech.wavPath,
      assPath,
      durationSec: duration,
      padAudio: true,
      out: path,
    }),
    {
      signal: input.signal,
      durationSec: duration,
      ...(input.onProgress ? { onProgress: input.onProgress } : {}),
    },
  );
  return { path, contentType: "video/mp4", durationSec: duration, assPath };
}
