/**
 * A mind map as text files: JSON (the tree as made), OPML 2.0 (outliners and mind-map apps import
 * it) and Markdown (a nested list). The picture formats are in svg.ts and png.ts.
 */
import type { MindMap, MindMapNode } from "./tree.ts";

/** The tree as JSON: title, language, source and the root with its children. */
export function mindMapJson(map: MindMap): string {
  return `${JSON.stringify(map, null, 2)}\n`;
}

// XML 1.0 cannot carry control characters other than tab and line breaks, U+FFFE/U+FFFF or lone
// surrogates (with the u flag \p{Cs} matches only a lone one); C1 controls go too, being unprintable.
const NOT_XML = /(?![\t\n\r])[\p{Cc}\p{Cs}\uFFFE\uFFFF]/gu;
const XML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

/**
 * `text` for XML character data or an attribute value: markup characters escaped, characters XML
 * cannot carry dropped.
 *
 * @example
 * xmlText('Salt & "sea" <level>'); // "Salt &amp; &quot;sea&quot; &lt;level&gt;"
 */
export function xmlText(text: string): string {
  return text.replace(NOT_XML, "").replace(/[&<>"']/g, (c) => XML_ESCAPES[c] ?? c);
}

function opmlOutline(node: MindMapNode, indent: string): string {
  const text = `text="${xmlText(node.label)}"`;
  if (node.children.length === 0) return `${indent}<outline ${text}/>`;
  const children = node.children.map((child) => opmlOutline(child, `${indent}  `)).join("\n");
  return `${indent}<outline ${text}>\n${children}\n${indent}</outline>`;
}

/** OPML 2.0: the root as the one top outline, its children nested inside it. */
export function mindMapOpml(map: MindMap): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<opml version="2.0">',
    "  <head>",
    `    <title>${xmlText(map.title)}</title>`,
    "  </head>",
    "  <body>",
    opmlOutline(map.root, "    "),
    "  </body>",
    "</opml>",
    "",
  ].join("\n");
}

/** Backslash before every ASCII punctuation mark Markdown could read as syntax (CommonMark allows it). */
const markdownText = (text: string) => text.replace(/[\\`*_{}[\]()<>#+\-.!|~]/g, (c) => `\\${c}`);

function markdownItems(nodes: readonly MindMapNode[], indent: string): string[] {
  return nodes.flatMap((node) => [
    `${indent}- ${markdownText(node.label)}`,
    ...markdownItems(node.children, `${indent}  `),
  ]);
}

/** Markdown: the root as a heading, its branches as a nested list. */
export function mindMapMarkdown(map: MindMap): string {
  return `# ${markdownText(map.root.label)}\n\n${markdownItems(map.root.children, "").join("\n")}\n`;
}
