import type { ContentFileLink, ContentTaskResult, SuccessData } from "../api/types.ts";

/**
 * What a task card shows for a poll of GET /v1/create/tasks/{id}/result: waiting, working (step,
 * progress, time left), done (the result's data, which its kind's previews read, and its files) or
 * failed (the error_key and the server's words). Both failure statuses of the spec (FAILURE, FAIL) read as failed.
 */
export type TaskView =
  | { phase: "waiting" }
  | { phase: "working"; step: string | null; percent: number | null; etaSec: number | null }
  | { phase: "done"; durationSec: number | null; data: SuccessData; files: readonly ContentFileLink[] }
  | { phase: "failed"; errorKey: string | null; error: string; message: string };

/**
 * The URL a PDF preview frame loads: the API's own /media links answer documents as downloads unless
 * asked `disposition=inline`. Any other link (a presigned R2 GET, whose signature covers its query) is
 * left as it is.
 *
 * @example inlinePreviewUrl("https://api.example/media/outputs/6f1c…/deck.pdf?expires=1&sig=x")
 * // "https://api.example/media/outputs/6f1c…/deck.pdf?expires=1&sig=x&disposition=inline"
 */
export function inlinePreviewUrl(link: string): string {
  const url = new URL(link, "http://console.invalid");
  if (!url.pathname.startsWith("/media/")) return link;
  url.searchParams.set("disposition", "inline");
  return link.startsWith("/") ? `${url.pathname}${url.search}` : url.toString();
}

const text = (value: unknown): string | null => (typeof value === "string" && value ? value : null);

/**
 * @example taskView({ status: "PROCESSING", step: "rendering_video", progress: 41.6, estimated_time: 12 })
 * // { phase: "working", step: "rendering_video", percent: 42, etaSec: 12 }
 */
export function taskView(result: ContentTaskResult): TaskView {
  const status: string = result.status;
  if (result.status === "PROCESSING") {
    const progress = result.progress;
    return {
      phase: "working",
      step: result.step ?? null,
      percent: progress === undefined ? null : Math.max(0, Math.min(100, Math.round(progress))),
      etaSec: result.estimated_time ?? null,
    };
  }
  if (result.status === "SUCCESS") {
    const data = result.data;
    return {
      phase: "done",
      durationSec: typeof data.duration === "number" && data.duration > 0 ? data.duration : null,
      data,
      files: data.files ?? [],
    };
  }
  if (status === "FAILURE" || status === "FAIL") {
    const failure = result as { error?: unknown; error_key?: unknown; message?: unknown };
    return {
      phase: "failed",
      errorKey: text(failure.error_key),
      error: text(failure.error) ?? "",
      message: text(failure.message) ?? "",
    };
  }
  return { phase: "waiting" };
}

/** Whether polling is over: the task succeeded or failed. */
export function isTerminal(result: ContentTaskResult | null): boolean {
  if (!result) return false;
  const phase = taskView(result).phase;
  return phase === "done" || phase === "failed";
}
