import { useEffect, useState } from "preact/hooks";
import { t } from "../../i18n/i18n.ts";
import { ErrorNote } from "../../ui/error-note.tsx";
import { type Inline, type MarkdownBlock, markdownBlocks } from "../markdown-blocks.ts";

/**
 * The study guide's Markdown, read from its file and shown as headings, lists and paragraphs. Every
 * piece of it is a text node: HTML inside the Markdown shows as text, it is never parsed.
 */
export function MarkdownPreview(props: { markdown: string }) {
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const abort = new AbortController();
    fetch(props.markdown, { signal: abort.signal })
      .then((response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return response.text();
      })
      .then(setText, (caught) => abort.signal.aborted || setError(caught));
    return () => abort.abort();
  }, [props.markdown]);

  if (error) return <ErrorNote error={error} />;
  if (text === null) return <p class="muted">{t("history.loading")}</p>;
  return (
    <article class="markdown-preview" aria-label={t("studioKinds.preview.guide")}>
      {markdownBlocks(text).map(blockElement)}
    </article>
  );
}

function blockElement(block: MarkdownBlock, i: number) {
  if (block.type === "heading") {
    // The card's own title is an h3: the guide's headings nest below it.
    const Heading = `h${block.level + 2}` as "h3";
    return <Heading key={i}>{runs(block.text)}</Heading>;
  }
  if (block.type === "list") {
    const List = block.ordered ? "ol" : "ul";
    return (
      <List key={i}>
        {block.items.map((item, j) => (
          <li key={j}>{runs(item)}</li>
        ))}
      </List>
    );
  }
  return <p key={i}>{runs(block.text)}</p>;
}

const runs = (inline: readonly Inline[]) =>
  inline.map((run, i) => (run.bold ? <strong key={i}>{run.text}</strong> : run.text));
