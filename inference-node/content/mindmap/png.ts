/**
 * The mind map as a PNG: the SVG rasterised by ffmpeg's librsvg decoder. ffmpeg is already on every
 * node (scripts/system-packages.json) and Debian's is built with librsvg, so this needs no new
 * package; Chromium is a test-only package and a headless browser per task is heavy. librsvg finds
 * fonts only through fontconfig, so ffmpeg runs with a fontconfig file naming the label face's
 * folder alone: the PNG uses the face the boxes were measured with, whatever the machine has.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { LOCAL_INPUT_ARGS } from "../../media/container-policy.ts";
import type { RenderTools } from "../ffmpeg.ts";
import { SEMIBOLD_FONT_FILE } from "../fonts.ts";
import { runTool } from "../process.ts";
import { xmlText } from "./export.ts";

const fontconfig = (cacheDir: string) =>
  [
    '<?xml version="1.0"?>',
    '<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">',
    "<fontconfig>",
    `  <dir>${xmlText(dirname(SEMIBOLD_FONT_FILE))}</dir>`,
    `  <cachedir>${xmlText(cacheDir)}</cachedir>`,
    "</fontconfig>",
    "",
  ].join("\n");

/**
 * Writes `svg` rasterised at its own size to `out` (RGB PNG). Fails `renderer_unavailable` without
 * ffmpeg and `render_failed` when it cannot draw; an abort kills ffmpeg.
 *
 * @example
 * await writeMindMapPng(tools, svg, "/tmp/map.png", signal);
 */
export async function writeMindMapPng(
  tools: RenderTools,
  svg: string,
  out: string,
  signal: AbortSignal,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "voxedge-mindmap-png-"));
  try {
    const config = join(dir, "fonts.conf");
    await writeFile(config, fontconfig(join(dir, "cache")));
    // From a file: through a pipe, ffmpeg 5.1's svg_pipe cannot probe the picture's size.
    const source = join(dir, "mindmap.svg");
    await writeFile(source, svg);
    await runTool(
      tools.ffmpeg,
      [
        "-hide_banner",
        "-nostdin",
        "-loglevel",
        "error",
        "-y",
        ...LOCAL_INPUT_ARGS,
        "-f",
        "svg_pipe",
        "-i",
        source,
        "-frames:v",
        "1",
        "-update",
        "1",
        "-pix_fmt",
        "rgb24",
        "-c:v",
        "png",
        out,
      ],
      {
        signal,
        env: { ...process.env, FONTCONFIG_FILE: config },
        missingCode: "renderer_unavailable",
        failedCode: "render_failed",
      },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
