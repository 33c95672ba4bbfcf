import type { ContentOutputFile } from "../../protocol/content.ts";
import type { TaskRecord } from "../../protocol/task.ts";
import type { MediaUrlMinter } from "../media/media-url.ts";
import type { SuccessData, TaskResultResponse } from "../schemas/content.ts";
import { FAILURE_VIEWS } from "../tasks/failure-views.ts";

/**
 * The content API's view of any task (GET /v1/create/tasks/{id}/result): PENDING while it waits,
 * PROCESSING with step, progress and estimated_time while it runs, SUCCESS with the result's data and
 * fresh signed links to its files, FAILURE with error, error_key (the failure code) and message.
 */
export async function toTaskResult(record: TaskRecord, mint: MediaUrlMinter): Promise<TaskResultResponse> {
  switch (record.status) {
    case "queued":
      return { status: "PENDING" };
    case "processing":
      return {
        status: "PROCESSING",
        ...(record.step ? { step: record.step } : {}),
        progress: record.progress,
        ...(record.eta_sec !== null ? { estimated_time: Math.round(record.eta_sec) } : {}),
      };
    case "failed": {
      const code = record.error_code ?? "internal_error";
      return {
        status: "FAILURE",
        error: FAILURE_VIEWS[code].content,
        error_key: code,
        message: record.error ?? "",
      };
    }
    case "done":
      return { status: "SUCCESS", data: await successData(record, mint) };
  }
}

async function successData(record: TaskRecord, mint: MediaUrlMinter): Promise<SuccessData> {
  if (record.kind === "transcribe") {
    const result = record.result;
    const audioUrl = record.source.type === "object" ? await mint(record.source.object_key) : null;
    return {
      type: "transcribe",
      text: result?.text ?? "",
      language: result?.language ?? null,
      duration: result?.duration_sec ?? 0,
      ...(audioUrl ? { audio_url: audioUrl } : {}),
    };
  }
  if (!record.result) return { type: record.kind };
  const { outputs, ...rest } = record.result;
  return { ...rest, type: record.kind, ...(await outputLinks(outputs, mint)) };
}

/** The spec's link fields for a render's files: video_url / audio_url, slide_url + slide_pdf_url. */
async function outputLinks(
  outputs: ContentOutputFile[],
  mint: MediaUrlMinter,
): Promise<Record<string, string>> {
  const field = { video: "video_url", audio: "audio_url", pptx: "slide_url", pdf: "slide_pdf_url" } as const;
  const links: Record<string, string> = {};
  for (const output of outputs) {
    const url = await mint(output.object_key);
    if (url) links[field[output.role]] = url;
  }
  return links;
}
