/**
 * A video's captions as files beside it: the cues it burns in (or speaks), written as SubRip and
 * WebVTT by the one subtitle writer, so players and editors that take a sidecar show the same text.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Cue, LABELLED, toSrt, toVtt } from "../../protocol/subtitles.ts";
import type { ContentFile } from "./task-types.ts";

/**
 * Writes `captions.srt` and `captions.vtt` into `workDir`, each cue cut to the video's `durationSec`
 * (a cue past the end is dropped).
 *
 * @example const files = await writeCaptionSidecars(media.cues, media.durationSec, workDir);
 */
export async function writeCaptionSidecars(
  cues: readonly Cue[],
  durationSec: number,
  workDir: string,
): Promise<ContentFile[]> {
  const within = cues
    .filter((cue) => cue.start < durationSec)
    .map((cue) => ({ ...cue, end: Math.min(cue.end, durationSec) }));
  const srt = join(workDir, "captions.srt");
  const vtt = join(workDir, "captions.vtt");
  await writeFile(srt, toSrt(within, LABELLED));
  await writeFile(vtt, toVtt(within, LABELLED));
  return [
    { role: "srt", path: srt, contentType: "application/x-subrip" },
    { role: "vtt", path: vtt, contentType: "text/vtt" },
  ];
}
