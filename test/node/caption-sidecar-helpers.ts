/**
 * Reading a rendered video's caption sidecars and frames the way a player would: ffmpeg parses the
 * SRT/VTT (its subtitle demuxers, converted to ASS events), and a frame is decoded to raw RGB.
 */
import { execFileSync } from "node:child_process";
import { assEvents } from "./content-helpers.ts";

export interface SidecarCue {
  start: number;
  end: number;
  text: string;
}

/** The cues of an SRT or VTT file as ffmpeg reads them (centisecond times, text with markup removed). */
export function sidecarCues(path: string): SidecarCue[] {
  const ass = execFileSync("ffmpeg", ["-v", "error", "-i", path, "-f", "ass", "pipe:1"]).toString("utf8");
  return assEvents(ass).map(({ start, end, text }) => ({
    start,
    end,
    text: text.replace(/\{[^}]*\}/g, "").replace(/\\N/g, " "),
  }));
}

/** The words of a text, lower case, without punctuation: what a reader compares. */
export function spokenWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(/\s+/)
    .map((word) => word.replace(/[^\p{L}\p{N}]/gu, ""))
    .filter(Boolean);
}

/** One decoded frame at `atSec`, as RGB bytes. */
export function frameAt(path: string, atSec: number, width: number, height: number): Buffer {
  const frame = execFileSync(
    "ffmpeg",
    [
      "-v",
      "error",
      "-ss",
      atSec.toFixed(3),
      "-i",
      path,
      "-frames:v",
      "1",
      "-f",
      "rawvideo",
      "-pix_fmt",
      "rgb24",
      "pipe:1",
    ],
    { maxBuffer: width * height * 3 + 1024 },
  );
  if (frame.length !== width * height * 3)
    throw new Error(`frame of ${frame.length} bytes, not ${width}x${height}`);
  return frame;
}

/**
 * The box around a frame's caption text: near-white or the highlight's yellow, which the generated
 * backgrounds never reach; null when there is none. `fromY` leaves out what is above (the header).
 */
export function captionBox(
  frame: Buffer,
  width: number,
  height: number,
  fromY = 0,
): { left: number; top: number; right: number; bottom: number; pixels: number } | null {
  let box = { left: width, top: height, right: -1, bottom: -1, pixels: 0 };
  for (let y = fromY; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const r = frame[i] ?? 0;
      const g = frame[i + 1] ?? 0;
      const b = frame[i + 2] ?? 0;
      const white = r > 225 && g > 225 && b > 225;
      const yellow = r > 215 && g > 180 && b < 90;
      if (!white && !yellow) continue;
      box = {
        left: Math.min(box.left, x),
        top: Math.min(box.top, y),
        right: Math.max(box.right, x),
        bottom: Math.max(box.bottom, y),
        pixels: box.pixels + 1,
      };
    }
  }
  return box.pixels > 0 ? box : null;
}
