/**
 * The mind map as an SVG picture, drawn from layout.ts's boxes, with the label face embedded
 * (Be Vietnam Pro SemiBold as a data: URL), so a browser draws every Vietnamese diacritic in the font
 * the boxes were measured with. librsvg (png.ts) ignores @font-face and finds the same face through
 * fontconfig instead.
 */
import { readFileSync } from "node:fs";
import { FONT_FAMILY, SEMIBOLD_FONT_FILE } from "../fonts.ts";
import { xmlText } from "./export.ts";
import type { LabelBox, MindMapLayout } from "./layout.ts";
import type { MindMap } from "./tree.ts";

/** Fill and text colour by depth: the title, topics, points, details. */
const DEPTH_COLOURS = [
  { fill: "#1E3A5F", text: "#FFFFFF" },
  { fill: "#2563EB", text: "#FFFFFF" },
  { fill: "#DBEAFE", text: "#1E3A5F" },
  { fill: "#F1F5F9", text: "#334155" },
] as const;
const EDGE_COLOUR = "#94A3B8";

let embeddedFont: string | undefined;
const fontFace = () => {
  embeddedFont ??= readFileSync(SEMIBOLD_FONT_FILE).toString("base64");
  return `@font-face{font-family:"${FONT_FAMILY}";font-weight:600;src:url(data:font/ttf;base64,${embeddedFont}) format("truetype")}`;
};

const n = (value: number) => Number(value.toFixed(2));

/** From the parent's right edge straight to its column's edge, then a curve to the child's left edge. */
function connector(parent: LabelBox, child: LabelBox, columnRight: number): string {
  const from = { x: n(parent.x + parent.w), y: n(parent.y + parent.h / 2) };
  const to = { x: n(child.x), y: n(child.y + child.h / 2) };
  const mid = n((columnRight + to.x) / 2);
  return `M${from.x} ${from.y}H${n(columnRight)}C${mid} ${from.y} ${mid} ${to.y} ${to.x} ${to.y}`;
}

/**
 * The SVG document of `map` laid out as `layout`.
 *
 * @example
 * const svg = mindMapSvg(map, layoutMindMap(map.root));
 */
export function mindMapSvg(map: MindMap, layout: MindMapLayout): string {
  const { width, height, boxes, columnRight } = layout;
  const edges = boxes.flatMap((box) => {
    const parent = box.parent === null ? undefined : boxes[box.parent];
    return parent
      ? [`<path d="${connector(parent, box, columnRight[parent.depth] ?? parent.x + parent.w)}"/>`]
      : [];
  });
  const labels = boxes.map((box) => {
    const colours = DEPTH_COLOURS[Math.min(box.depth, DEPTH_COLOURS.length - 1)] ?? DEPTH_COLOURS[3];
    return (
      `<g class="node" data-depth="${box.depth}">` +
      `<rect class="label-box" x="${n(box.x)}" y="${n(box.y)}" width="${n(box.w)}" height="${n(box.h)}" rx="6" fill="${colours.fill}"/>` +
      `<text x="${n(box.textX)}" y="${n(box.baseline)}" font-size="${box.fontSize}" fill="${colours.text}">${xmlText(box.label)}</text>` +
      "</g>"
    );
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" xml:lang="${map.language}" font-family="'${FONT_FAMILY}', sans-serif" font-weight="600">`,
    `<title>${xmlText(map.title)}</title>`,
    `<style>${fontFace()}</style>`,
    `<rect width="${width}" height="${height}" fill="#FFFFFF"/>`,
    `<g class="edges" fill="none" stroke="${EDGE_COLOUR}" stroke-width="2">${edges.join("")}</g>`,
    ...labels,
    "</svg>",
    "",
  ].join("\n");
}
