import type { TaskRecord } from "../../protocol/task.ts";
import type { SuccessData, TaskResultResponse } from "../schemas/content.ts";
import { FAILURE_VIEWS } from "../tasks/failure-views.ts";

/**
 * The content API's view of any task (GET /v1/create/tasks/{id}/result): PENDING while it waits,
 * PROCESSING with step, progress and estimated_time while it runs, SUCCESS with the result's data and
 * fresh signed links to its files, FAILURE with error, error_key (the failure code) and message. What
 * SUCCESS carries is the kind's own (`successData`, from its entry in worker/tasks/kinds).
 */
export async function toTaskResult<R extends TaskRecord>(
  record: R,
  successData: (done: R) => Promise<SuccessData>,
): Promise<TaskResultResponse> {
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
      return { status: "SUCCESS", data: await successData(record) };
  }
}
