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
export const MINDMAP_MARGIN = 24;

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
  node: MindMapNode;
  depth: number;
  parent: number | null;
  metrics: TextMetrics;
  fontSize: number;
  /** Centre line, set once the rows are known. */
  centre: number;
}

/**
 * Lays out `root`.
 *
 * @example
 * const { width, height, boxes } = layoutMindMap(map.root);
 */
export function layoutMindMap(root: MindMapNode, measure = labelMeasurer()): MindMapLayout {
  const placed: Placed[] = [];
  const visit = (node: MindMapNode, depth: number, parent: number | null) => {
    const fontSize = MINDMAP_FONT_SIZES[Math.min(depth, MINDMAP_FONT_SIZES.length - 1)] ?? 13;
    const index =
      placed.push({ node, depth, parent, fontSize, metrics: measure(node.label, fontSize), centre: 0 }) - 1;
    for (const child of node.children) visit(child, depth + 1, index);
  };
  visit(root, 0, null);

  const boxHeight = (p: Placed) => p.metrics.height + 2 * PAD_Y;
  const rowHeight = Math.max(...placed.filter((p) => p.depth > 0).map(boxHeight), 0);
  const pitch = rowHeight + ROW_GAP;
  // Leaves take the rows in order; a parent sits at the middle of its first and last child.
  let row = 0;
  const centreOf = (index: number): number => {
    const p = placed[index] as Placed;
    const children = placed.flatMap((c, i) => (c.parent === index ? [i] : []));
    p.centre =
      children.length === 0
        ? row++ * pitch + rowHeight / 2
        : (() => {
            const centres = children.map(centreOf);
            return ((centres[0] ?? 0) + (centres.at(-1) ?? 0)) / 2;
          })();
    return p.centre;
  };
  centreOf(0);
  // Everything spans the rows and the title's box (taller than the rows when there are few).
  const rootBox = boxHeight(placed[0] as Placed);
  const rootCentre = (placed[0] as Placed).centre;
  const top = Math.min(0, rootCentre - rootBox / 2);
  const bottom = Math.max(row * pitch - ROW_GAP, rootCentre + rootBox / 2);
  const shift = MINDMAP_MARGIN - top;

  const depths = Math.max(...placed.map((p) => p.depth)) + 1;
  const columnWidth = Array.from({ length: depths }, (_, d) =>
    Math.max(...placed.filter((p) => p.depth === d).map((p) => p.metrics.width + 2 * PAD_X)),
  );
  const columnLeft: number[] = [];
  const columnRight: number[] = [];
  let x = MINDMAP_MARGIN;
  for (const width of columnWidth) {
    columnLeft.push(x);
    columnRight.push(x + width);
    x += width + COLUMN_GAP;
  }

  const boxes = placed.map((p): LabelBox => {
    const h = boxHeight(p);
    const y = p.centre + shift - h / 2;
    const left = columnLeft[p.depth] ?? MINDMAP_MARGIN;
    return {
      label: p.node.label,
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
    width: Math.ceil(x - COLUMN_GAP + MINDMAP_MARGIN),
    height: Math.ceil(bottom - top + 2 * MINDMAP_MARGIN),
    boxes,
    columnRight,
  };
}
