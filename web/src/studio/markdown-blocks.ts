/**
 * The study guide's Markdown as blocks the page renders as elements (headings, lists, paragraphs, with
 * **bold** runs): the text always lands in text nodes, so whatever HTML the Markdown holds shows as
 * text and never runs. The subset is what the guide writer emits; anything else reads as a paragraph.
 */
export type Inline = { text: string; bold: boolean };
export type MarkdownBlock =
  | { type: "heading"; level: 1 | 2 | 3 | 4; text: Inline[] }
  | { type: "list"; ordered: boolean; items: Inline[][] }
  | { type: "paragraph"; text: Inline[] };

/**
 * @example inlineRuns("a **b** c") // [{ text: "a ", bold: false }, { text: "b", bold: true }, { text: " c", bold: false }]
 */
export function inlineRuns(line: string): Inline[] {
  return line
    .split(/\*\*(.+?)\*\*/g)
    .map((text, i) => ({ text, bold: i % 2 === 1 }))
    .filter((run) => run.text);
}

const HEADING = /^(#{1,6})\s+(.*)$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d+[.)]\s+(.*)$/;

/**
 * @example markdownBlocks("# Guide\n- one\n- two\n\nText") // heading, list of two, paragraph
 */
export function markdownBlocks(markdown: string): MarkdownBlock[] {
  const blocks: MarkdownBlock[] = [];
  let paragraph: string[] = [];
  const endParagraph = () => {
    if (paragraph.length) blocks.push({ type: "paragraph", text: inlineRuns(paragraph.join(" ")) });
    paragraph = [];
  };
  for (const line of markdown.split(/\r?\n/)) {
    const heading = HEADING.exec(line);
    const item = BULLET.exec(line) ?? NUMBERED.exec(line);
    if (heading) {
      endParagraph();
      const level = Math.min(4, heading[1]?.length ?? 1) as 1 | 2 | 3 | 4;
      blocks.push({ type: "heading", level, text: inlineRuns(heading[2] ?? "") });
    } else if (item) {
      endParagraph();
      const ordered = NUMBERED.test(line);
      const last = blocks.at(-1);
      const runs = inlineRuns(item[1] ?? "");
      if (last?.type === "list" && last.ordered === ordered) last.items.push(runs);
      else blocks.push({ type: "list", ordered, items: [runs] });
    } else if (line.trim()) {
      paragraph.push(line.trim());
    } else {
      endParagraph();
    }
  }
  endParagraph();
  return blocks;
}
