/**
 * Every file of a mind map, written into a task's folder: what a runner uploads once the task kind
 * is wired (docs/api.md "Mind map").
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RenderTools } from "../ffmpeg.ts";
import { mindMapJson, mindMapMarkdown, mindMapOpml } from "./export.ts";
import { layoutMindMap } from "./layout.ts";
import { writeMindMapPng } from "./png.ts";
import { mindMapSvg } from "./svg.ts";
import type { MindMap } from "./tree.ts";

export const MINDMAP_FORMATS = ["json", "opml", "markdown", "svg", "png"] as const;
export type MindMapFormat = (typeof MINDMAP_FORMATS)[number];

/** File name and media type of each format. */
export const MINDMAP_FILE_TYPES: Readonly<Record<MindMapFormat, { name: string; contentType: string }>> = {
  json: { name: "mindmap.json", contentType: "application/json" },
  opml: { name: "mindmap.opml", contentType: "text/x-opml; charset=utf-8" },
  markdown: { name: "mindmap.md", contentType: "text/markdown; charset=utf-8" },
  svg: { name: "mindmap.svg", contentType: "image/svg+xml" },
  png: { name: "mindmap.png", contentType: "image/png" },
};

export interface MindMapFile {
  format: MindMapFormat;
  path: string;
  contentType: string;
}

/**
 * Writes the map in every format into `dir`.
 *
 * @example
 * const files = await writeMindMapFiles(map, taskDir, tools, signal); // 5 files, json first
 */
export async function writeMindMapFiles(
  map: MindMap,
  dir: string,
  tools: RenderTools,
  signal: AbortSignal,
): Promise<MindMapFile[]> {
  const svg = mindMapSvg(map, layoutMindMap(map.root));
  const texts: Record<Exclude<MindMapFormat, "png">, string> = {
    json: mindMapJson(map),
    opml: mindMapOpml(map),
    markdown: mindMapMarkdown(map),
    svg,
  };
  const files = MINDMAP_FORMATS.map((format) => ({
    format,
    path: join(dir, MINDMAP_FILE_TYPES[format].name),
    contentType: MINDMAP_FILE_TYPES[format].contentType,
  }));
  for (const file of files) {
    if (file.format === "png") await writeMindMapPng(tools, svg, file.path, signal);
    else await writeFile(file.path, texts[file.format]);
  }
  return files;
}
