import {
  CONTENT_OUTPUT_EXTENSIONS,
  type ContentKind,
  type ContentOutputFile,
} from "../../protocol/content.ts";
import { CompleteRequest, type LeaseOf } from "../../protocol/node.ts";
import type { ContentDeps } from "../content/run-content-task.ts";
import { runContentTask } from "../content/run-content-task.ts";
import type { TaskContext } from "../lease-loop.ts";
import type { WorkerClient } from "../worker-client.ts";

/** Where rendering ends and the upload of its files begins, in the task's progress. */
const UPLOAD_START = 95;

/**
 * Runs one content task (shorts, quiz_video, slide): renders it with the content engine, streams its
 * files into the Worker's storage under the task, and returns the completion that names them. The
 * engine's step, progress and estimate go out with the heartbeats.
 */
export async function renderTask(
  lease: LeaseOf<ContentKind>,
  deps: { content: ContentDeps; client: WorkerClient },
  context: TaskContext,
): Promise<CompleteRequest> {
  const { translate } = deps.content;
  // a long note is translated line by line inside one stage: each line is a sign of life
  const content = translate
    ? {
        ...deps.content,
        translate: (...args: Parameters<typeof translate>) => translate(...args).finally(context.alive),
      }
    : deps.content;
  const rendered = await runContentTask({ kind: lease.kind, params: lease.params }, content, {
    signal: context.signal,
    report: (update) =>
      context.progress(update.progress, { step: update.step, etaSec: update.estimated_time_sec }),
  });
  try {
    const outputs: ContentOutputFile[] = [];
    for (const [index, file] of rendered.files.entries()) {
      context.progress(UPLOAD_START + (index / rendered.files.length) * (100 - UPLOAD_START), {
        step: "uploading",
      });
      context.signal.throwIfAborted();
      const name = `${rendered.data.title || lease.kind}.${CONTENT_OUTPUT_EXTENSIONS[file.role]}`;
      // sent again while the Worker answers "not now", until the task is stopped (transient-retry.ts)
      const stored = await deps.client.uploadOutput(lease.lease_id, name, file.path, file.contentType, {
        signal: context.signal,
      });
      outputs.push({ role: file.role, ...stored });
    }
    // parse() pairs the kind with its result type and checks what the Worker will check.
    return CompleteRequest.parse({ kind: lease.kind, result: { ...rendered.data, outputs } });
  } finally {
    await rendered.cleanup();
  }
}
