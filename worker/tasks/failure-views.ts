import type { TaskFailureCode } from "../../protocol/task-failure.ts";
import type { ErrorCode } from "../errors.ts";

/** How one failure code reads on the synchronous OpenAI-compatible endpoints. */
export interface SyncFailureView {
  /** The API error it becomes (its HTTP status comes with it). */
  error: ErrorCode;
  /** OpenAI's machine `code` in the envelope. */
  openaiCode: string | null;
  /** The request field at fault, if one. */
  param: string | null;
}

const inputFile = { error: "bad_request", openaiCode: "invalid_file", param: "file" } as const;
const serverFault = { error: "internal_error", openaiCode: null, param: null } as const;
const noCapacity = { error: "service_unavailable", openaiCode: "service_unavailable", param: null } as const;

/**
 * The one table from a task's failure code to what each public API shows. The asynchronous
 * speech-to-text API shows the code itself (`error_code` beside `error`, status 200 `failed`).
 */
export const FAILURE_VIEWS: Record<TaskFailureCode, { sync: SyncFailureView }> = {
  media_unreachable: { sync: inputFile },
  media_unreadable: { sync: inputFile },
  media_empty: { sync: inputFile },
  media_too_large: { sync: { error: "payload_too_large", openaiCode: null, param: "file" } },
  unsupported_language: {
    sync: { error: "bad_request", openaiCode: "unsupported_value", param: "language" },
  },
  language_required: { sync: { error: "bad_request", openaiCode: null, param: "language" } },
  invalid_params: { sync: serverFault },
  unsupported_kind: { sync: noCapacity },
  decoder_error: { sync: serverFault },
  cancelled: { sync: { error: "client_closed", openaiCode: "cancelled", param: null } },
  node_lost: { sync: noCapacity },
  node_shutdown: { sync: noCapacity },
  queue_unavailable: { sync: noCapacity },
  queue_undeliverable: { sync: noCapacity },
  internal_error: { sync: serverFault },
};
