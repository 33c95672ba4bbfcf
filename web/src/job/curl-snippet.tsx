import { t } from "../i18n/i18n.ts";
import { CopyField } from "../ui/copy-field.tsx";

/**
 * The same job from a terminal: a curl for GET /transcribe/{task_id}. The key stays out of the text
 * (it is copied, pasted and screenshotted); the command reads it from $VOXEDGE_API_KEY.
 */
export function curlFor(origin: string, taskId: string): string {
  return `curl -s -H "Authorization: Bearer $VOXEDGE_API_KEY" ${origin}/transcribe/${encodeURIComponent(taskId)}`;
}

export function CurlSnippet({ taskId }: { taskId: string }) {
  return (
    <CopyField
      id="curl-command"
      class="curl"
      label={t("transcript.curl")}
      value={curlFor(location.origin, taskId)}
    />
  );
}
