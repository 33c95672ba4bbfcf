import { jobState } from "../../../platform/stubs.ts";
import { toTaskResult } from "../../content/task-result.ts";
import { toTaskStatus } from "../task-view.ts";
import type { WorkerTaskKind } from "./worker-task-kind.ts";

/**
 * A transcription: it has no output files; its decoder `detail` (interactive tasks) goes to the fast
 * store only, before the final status that wakes a waiting synchronous caller, so the stored result
 * never carries it; its webhook carries the transcription poll view (TaskStatusResponse).
 */
export const transcribeKind: WorkerTaskKind<"transcribe"> = {
  outputFiles: () => [],
  async storedResult(env, taskId, completion) {
    const { detail, ...result } = completion.result;
    if (detail) await jobState(env, taskId).writeDetail(detail);
    return result;
  },
  resultView: (record, mint) =>
    toTaskResult(record, async (done) => {
      const result = done.result;
      const audioUrl = done.source.type === "object" ? await mint(done.source.object_key) : null;
      return {
        type: "transcribe",
        text: result?.text ?? "",
        language: result?.language ?? null,
        duration: result?.duration_sec ?? 0,
        ...(audioUrl ? { audio_url: audioUrl } : {}),
      };
    }),
  webhookView: (record, mint) => toTaskStatus(record, null, mint),
};
