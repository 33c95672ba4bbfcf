/**
 * The short itself: an H.264/AAC MP4 in the aspect's frame (1080x1920, 1920x1080 or 1080x1080;
 * generated background, title card, word-highlighted captions, narration) in one ffmpeg pass, or with
 * `is_audio_only` just the narration as AAC in M4A.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ShortAspect } from "../../protocol/content.ts";
import type { Cue } from "../../protocol/subtitles.ts";
import { LOCAL_INPUT_ARGS } from "../media/container-policy.ts";
import { backgroundGraph } from "./backgrounds.ts";
import { SHORT_LAYOUTS, shortCaptionCues, shortCaptions } from "./captions.ts";
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
  aspect: ShortAspect;
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
  /** The captions as cues, for the SRT/VTT sidecar (videos only). */
  cues?: Cue[];
}

/**
 * Renders the short.
 *
 * @example
 * const media = await renderShort({ title, speech, titleWordCount: 2, bgId: "aurora", clipDurationSec: 30, audioOnly: false, aspect: "9:16", workDir, tools, signal });
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
  const captions = {
    title: input.title,
    titleEndSec: (titleWords.at(-1)?.end ?? 0) + 0.15,
    words: input.speech.words.slice(input.titleWordCount),
    videoEndSec: duration,
    aspect: input.aspect,
  };
  await writeFile(assPath, shortCaptions(captions));
  const path = join(input.workDir, "short.mp4");
  const layout = SHORT_LAYOUTS[input.aspect];
  const background = backgroundGraph(input.bgId, {
    width: layout.width,
    height: layout.height,
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
  return { path, contentType: "video/mp4", durationSec: duration, assPath, cues: shortCaptionCues(captions) };
}
