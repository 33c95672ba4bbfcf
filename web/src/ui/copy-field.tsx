import { useRef, useState } from "preact/hooks";
import { t } from "../i18n/i18n.ts";

/**
 * A labelled read-only text (a command, a link) with a Copy button that says when it worked. On a page
 * without the Clipboard API (plain http) the text is selected and copied the old way.
 */
export function CopyField(props: { id: string; label: string; value: string; class?: string }) {
  const [copied, setCopied] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const copy = async () => {
    try {
      if (navigator.clipboard) await navigator.clipboard.writeText(props.value);
      else {
        input.current?.select();
        if (!document.execCommand("copy")) throw new Error("copy refused");
      }
      setCopied(true);
      setTimeout(() => setCopied(false), 2_000);
    } catch {
      setCopied(false);
    }
  };
  return (
    <div class={`copy-field ${props.class ?? ""}`}>
      <label for={props.id}>{props.label}</label>
      <div class="row">
        <input
          id={props.id}
          ref={input}
          class="code"
          readOnly
          value={props.value}
          onFocus={(e) => (e.target as HTMLInputElement).select()}
        />
        <button type="button" class="button button-secondary" onClick={copy} aria-live="polite">
          {copied ? t("transcript.copied") : t("transcript.copy")}
        </button>
      </div>
    </div>
  );
}
