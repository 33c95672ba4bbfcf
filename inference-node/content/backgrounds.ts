/**
 * Backgrounds made by ffmpeg's own sources, so no image or video needs a licence. Each is drawn at a
 * quarter of the output size and scaled up: smooth gradients lose nothing, and generation drops from
 * about a third of a render's time to a few percent (bench/content.ts).
 */
import { BACKGROUNDS } from "../../protocol/content.ts";
import { ContentError } from "./errors.ts";

export interface FrameSpec {
  width: number;
  height: number;
  fps: number;
  durationSec: number;
}

/** Generation happens at 1/DOWNSCALE of the output size. */
const DOWNSCALE = 4;

type Source = (w: number, h: number, fps: number, d: string) => string;

const gradient =
  (colors: string[], type: "linear" | "radial" | "circular", speed: number): Source =>
  (w, h, fps, d) =>
    `gradients=s=${w}x${h}:r=${fps}:d=${d}:type=${type}:speed=${speed}:nb_colors=${colors.length}:` +
    colors.map((c, i) => `c${i}=${c}`).join(":");

const SOURCES: Readonly<Record<string, Source>> = {
  aurora: gradient(["0x0f0c29", "0x302b63", "0x24243e", "0x6a3093"], "linear", 0.008),
  sunset: gradient(["0xff7e5f", "0xfeb47b", "0x86377b", "0x2b1055"], "linear", 0.01),
  ocean: gradient(["0x00c9a7", "0x005c97", "0x001f3f"], "radial", 0.006),
  grid: (w, h, fps, d) =>
    `color=c=0x0b1026:s=${w}x${h}:r=${fps}:d=${d},drawgrid=w=${Math.round(w / 9)}:h=${Math.round(w / 9)}:t=1:c=0x3b82f6@0.5,scroll=h=0.002:v=0.004`,
  charcoal: (w, h, fps, d) => `color=c=0x1f2430:s=${w}x${h}:r=${fps}:d=${d}`,
};

/**
 * The lavfi source graph for `bgId`, at the output size and frame rate. `halfSizeFilters` run on
 * the frames at half the output size before the final upscale (quiz cards: card-boxes.ts).
 *
 * @example
 * backgroundGraph("aurora", { width: 1080, height: 1920, fps: 24, durationSec: 30 });
 * // "gradients=s=270x480:r=24:d=30.000:...,scale=1080:1920:flags=bilinear"
 */
export function backgroundGraph(
  bgId: string,
  spec: FrameSpec,
  halfSizeFilters: readonly string[] = [],
): string {
  const source = SOURCES[bgId];
  if (!source || !BACKGROUNDS.some((b) => b.bg_id === bgId)) {
    throw new ContentError("invalid_params", `unknown bg_id "${bgId}"`);
  }
  const w = Math.max(16, Math.round(spec.width / DOWNSCALE / 2) * 2);
  const h = Math.max(16, Math.round(spec.height / DOWNSCALE / 2) * 2);
  const generated = `${source(w, h, spec.fps, spec.durationSec.toFixed(3))},format=yuv420p`;
  const full = `scale=${spec.width}:${spec.height}:flags=bilinear,setsar=1`;
  if (halfSizeFilters.length === 0) return `${generated},${full}`;
  return `${generated},scale=${spec.width / 2}:${spec.height / 2}:flags=bilinear,${halfSizeFilters.join(",")},${full}`;
}
