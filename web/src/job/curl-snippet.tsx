import { useState } from "preact/hooks";
import { t } from "../i18n/i18n.ts";

/**
 * The same job from a terminal: a curl for GET /transcribe/{task_id}. The key stays out of the text
 * (it is copied, pasted and screenshotted); the command reads it from $VOXEDGE_API_KEY.
 */
export function curlFor(origin: string, taskId: string): string {
  return `curl -s -H "Authorization: Bearer $VOXEDGE_API_KEY" ${origin}/transcribe/${encodeURIComponent(taskId)}`;
}

export function CurlSnippet({ taskId }: { taskId: string }) {
  const command = curlFor(location.origin, taskId);
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(command);
      setCopied(true);
      setTimeout(() => setCopied(false), 2_000);
    } catch {
      setCopied(false);
    }
  };
  return (
    <div class="curl">
      <label for="curl-command">{t("transcript.curl")}</label>
      <div class="row">
        <input
          id="curl-command"
          class="code"
          readOnly
          value={command}
          onFocus={(e) => (e.target as HTMLInputElement).select()}
        />
        <button type="button" class="button button-secondary" onClick={copy}>
          {copied ? t("transcript.copied") : t("transcript.copy")}
        </button>
      </div>
    </div>
  );
}
