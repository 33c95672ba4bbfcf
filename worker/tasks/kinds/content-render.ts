import type { ContentOutputFile } from "../../../protocol/content.ts";
import type { ContentKind } from "../../../protocol/task.ts";
import { toTaskResult } from "../../content/task-result.ts";
import type { MediaUrlMinter } from "../../media/media-url.ts";
import type { WorkerTaskKind } from "./worker-task-kind.ts";

/**
 * A content render (shorts, quiz video, slide deck): its completion names the files it uploaded, which
 * are checked and kept as reported; its result view links them, and its webhook carries that view.
 */
const resultView: WorkerTaskKind<ContentKind>["resultView"] = (record, mint) =>
  toTaskResult(record, async (done) => {
    if (!done.result) return { type: done.kind };
    const { outputs, ...rest } = done.result;
    return { ...rest, type: done.kind, ...(await outputLinks(outputs, mint)) };
  });

const contentRender: WorkerTaskKind<ContentKind> = {
  outputFiles: (completion) => completion.result.outputs,
  storedResult: async (_env, _taskId, completion) => completion.result,
  resultView,
  webhookView: resultView,
};

/**
 * One content kind's entry: they all behave alike. (TypeScript holds WorkerTaskKind invariant in its
 * kind, so the shared entry is handed out as each kind's own.)
 */
export const contentRenderKind = <K extends ContentKind>() => contentRender as unknown as WorkerTaskKind<K>;

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
