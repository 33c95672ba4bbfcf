/**
 * A note's own structure, when it has one: markdown headings (by level) and list items (by
 * indentation) nest as the note nests them, and a paragraph's sentences belong to the heading above.
 */
import { headingOf, splitSentences } from "../text.ts";

export interface OutlineNode {
  /** A heading's or list item's text; empty for the note's top (before any heading). */
  text: string;
  /** Paragraph sentences written directly under this heading, in order. */
  sentences: string[];
  children: OutlineNode[];
}

const LIST_ITEM = /^(\s*)(?:[-*+•]|\d+[.)])\s+(.+)$/;

/** Markdown inline decoration that is not part of a label. */
const plain = (text: string) =>
  text
    .replace(/!\[[^\]]*]\([^)]*\)/g, "")
    .replace(/\[([^\]]*)]\([^)]*\)/g, "$1")
    .replace(/[*_`~]+/g, "")
    .trim();

/** Nesting rank of a line: headings by level (1-6) above every list item, items by indentation. */
type Rank = { kind: "heading"; level: number } | { kind: "item"; indent: number };
const outranks = (a: Rank, b: Rank) =>
  a.kind === "heading" ? b.kind === "item" || a.level < b.level : b.kind === "item" && a.indent < b.indent;

/**
 * The note's outline; null when it has no structure to follow (no heading and fewer than two list
 * items), so the caller builds the map from key phrases instead.
 *
 * @example
 * noteOutline("# Rivers\nThe Mekong is long.\n- Fish\n- Rice", "en");
 * // { text: "", sentences: [], children: [{ text: "Rivers", sentences: ["The Mekong is long."], children: [Fish, Rice] }] }
 */
export function noteOutline(content: string, language: "en" | "vi"): OutlineNode | null {
  const top: OutlineNode = { text: "", sentences: [], children: [] };
  const stack: { node: OutlineNode; rank: Rank | null }[] = [{ node: top, rank: null }];
  let headings = 0;
  let items = 0;
  let paragraph: string[] = [];
  const flush = () => {
    const text = paragraph.join(" ").trim();
    paragraph = [];
    if (!text) return;
    // A paragraph belongs to the heading it sits under, not to the list item before it.
    const owner = stack.findLast((entry) => entry.rank?.kind !== "item") ?? stack[0];
    owner?.node.sentences.push(...splitSentences(text, language));
  };
  const open = (text: string, rank: Rank) => {
    while (stack.length > 1 && !outranks(stack.at(-1)?.rank as Rank, rank)) stack.pop();
    const node: OutlineNode = { text, sentences: [], children: [] };
    stack.at(-1)?.node.children.push(node);
    stack.push({ node, rank });
  };
  for (const line of content.split(/\r?\n/)) {
    const heading = headingOf(line);
    const level = /^\s{0,3}(#{1,6})\s/.exec(line)?.[1]?.length;
    if (heading !== null && level) {
      flush();
      headings += 1;
      open(plain(heading), { kind: "heading", level });
      continue;
    }
    const item = LIST_ITEM.exec(line.replace(/\t/g, "    "));
    if (item) {
      flush();
      items += 1;
      open(plain(item[2] ?? ""), { kind: "item", indent: item[1]?.length ?? 0 });
      continue;
    }
    if (line.trim()) paragraph.push(plain(line));
    else flush();
  }
  flush();
  return headings > 0 || items > 1 ? top : null;
}
