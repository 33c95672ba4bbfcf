/**
 * Where every label of a mind map goes: a left-to-right tree, one column per level, each label in a
 * box sized from the label's width in the font it is drawn with (Be Vietnam Pro SemiBold, measured
 * by pdfkit from the font file itself). Boxes never overlap by construction: columns are as wide as
 * their widest box plus a gap, and in a column every subtree owns its own band of rows, with its
 * node centred in it and every row as tall as the tallest box.
 */
import PDFDocument from "pdfkit";
import { SEMIBOLD_FONT_FILE } from "../fonts.ts";
import type { MindMapNode } from "./tree.ts";

/** Font size (px) by depth: the title, topics, points, details. */
export const MINDMAP_FONT_SIZES = [22, 17, 15, 13] as const;
const PAD_X = 12;
const PAD_Y = 7;
/** Between columns: room for the connecting curves. */
const COLUMN_GAP = 56;
const ROW_GAP = 10;
const MARGIN = 24;

export interface LabelBox {
  label: string;
  depth: number;
  fontSize: number;
  /** The box, in px from the canvas's top left. */
  x: number;
  y: number;
  w: number;
  h: number;
  /** Where the text starts: its left and its baseline. */
  textX: number;
  baseline: number;
  /** Index of the parent's box; null for the root. */
  parent: number | null;
}

export interface MindMapLayout {
  width: number;
  height: number;
  /** In depth-first order, the root first. */
  boxes: LabelBox[];
  /** The right edge of each column (for the connectors' straight part). */
  columnRight: number[];
}

export interface TextMetrics {
  width: number;
  /** Ascent + descent. */
  height: number;
  ascent: number;
}

/** Measures text in the label face with pdfkit (fontkit shaping, kerning included). */
export function labelMeasurer(): (text: string, fontSize: number) => TextMetrics {
  const doc = new PDFDocument({ autoFirstPage: false });
  doc.font(SEMIBOLD_FONT_FILE);
  // pdfkit keeps the face's hhea ascender (per 1000 em) on its current font, outside its typings.
  const ascender = (doc as unknown as { _font: { ascender: number } })._font.ascender;
  return (text, fontSize) => {
    doc.fontSize(fontSize);
    return {
      width: doc.widthOfString(text),
      height: doc.currentLineHeight(),
      ascent: (ascender / 1000) * fontSize,
    };
  };
}

interface Placed {
  label: string;
  depth: number;
  parent: number | null;
  fontSize: number;
  metrics: TextMetrics;
  /** Centre line, from the top of the first row. */
  centre: number;
}

const fontSizeAt = (depth: number) =>
  MINDMAP_FONT_SIZES[Math.min(depth, MINDMAP_FONT_SIZES.length - 1)] ?? MINDMAP_FONT_SIZES[3];

/**
 * Lays out `root`.
 *
 * @example
 * const { width, height, boxes } = layoutMindMap(map.root);
 */
export function layoutMindMap(root: MindMapNode, measure = labelMeasurer()): MindMapLayout {
  const boxHeight = (metrics: TextMetrics) => metrics.height + 2 * PAD_Y;
  // A box's height depends on its font size alone, so the rows are as tall as the largest size below the title.
  const rowHeight = Math.max(...MINDMAP_FONT_SIZES.slice(1).map((size) => boxHeight(measure("", size))));
  const pitch = rowHeight + ROW_GAP;
  const placed: Placed[] = [];
  let rows = 0;
  // Depth first: a leaf takes the next row; a parent sits halfway between its first and last child.
  const place = (node: MindMapNode, depth: number, parent: number | null): number => {
    const fontSize = fontSizeAt(depth);
    const entry: Placed = {
      label: node.label,
      depth,
      parent,
      fontSize,
      metrics: measure(node.label, fontSize),
      centre: 0,
    };
    const index = placed.push(entry) - 1;
    const centres = node.children.map((child) => place(child, depth + 1, index));
    entry.centre =
      centres.length === 0 ? rows++ * pitch + rowHeight / 2 : ((centres[0] ?? 0) + (centres.at(-1) ?? 0)) / 2;
    return entry.centre;
  };
  const rootCentre = place(root, 0, null);
  // Everything spans the rows and the title's box (taller than the rows when there are few).
  const rootBox = boxHeight((placed[0] as Placed).metrics);
  const top = Math.min(0, rootCentre - rootBox / 2);
  const bottom = Math.max(rows * pitch - ROW_GAP, rootCentre + rootBox / 2);
  const shift = MARGIN - top;

  const depths = Math.max(...placed.map((p) => p.depth)) + 1;
  const columnWidth = Array.from({ length: depths }, (_, d) =>
    Math.max(...placed.filter((p) => p.depth === d).map((p) => p.metrics.width + 2 * PAD_X)),
  );
  const columnLeft: number[] = [];
  const columnRight: number[] = [];
  let x = MARGIN;
  for (const width of columnWidth) {
    columnLeft.push(x);
    columnRight.push(x + width);
    x += width + COLUMN_GAP;
  }

  const boxes = placed.map((p): LabelBox => {
    const h = boxHeight(p.metrics);
    const y = p.centre + shift - h / 2;
    const left = columnLeft[p.depth] ?? MARGIN;
    return {
      label: p.label,
      depth: p.depth,
      fontSize: p.fontSize,
      x: left,
      y,
      w: p.metrics.width + 2 * PAD_X,
      h,
      textX: left + PAD_X,
      baseline: y + PAD_Y + p.metrics.ascent,
      parent: p.parent,
    };
  });
  return {
    width: Math.ceil(x - COLUMN_GAP + MARGIN),
    height: Math.ceil(bottom - top + 2 * MARGIN),
    boxes,
    columnRight,
  };
}
