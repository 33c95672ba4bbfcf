import type { ContentOutputFile, ContentOutputRole } from "../../../protocol/content.ts";
import type { ContentKind } from "../../../protocol/task.ts";
import { toTaskResult } from "../../content/task-result.ts";
import type { MediaUrlMinter } from "../../media/media-url.ts";
import type { ContentFileLink } from "../../schemas/content.ts";
import type { WorkerTaskKind } from "./worker-task-kind.ts";

/**
 * The spec's own link fields, per role, of a render's files; a kind names the ones the spec gives it
 * (a slide deck's PDF is `slide_pdf_url`, a study guide's is only in `files`).
 */
export type LinkFields = Partial<Record<ContentOutputRole, string>>;

/** What shorts, quiz videos and audio-only renders link: their video or audio. */
export const MEDIA_LINK_FIELDS: LinkFields = { video: "video_url", audio: "audio_url" };

/**
 * A content render: its completion names the files it uploaded, which are checked and kept as
 * reported; its result view links them — every file in `files` (role, type, size, link) and the
 * spec's fields the kind has — and its webhook carries that view.
 */
function contentRender(linkFields: LinkFields): WorkerTaskKind<ContentKind> {
  const resultView: WorkerTaskKind<ContentKind>["resultView"] = (record, mint) =>
    toTaskResult(record, async (done) => {
      if (!done.result) return { type: done.kind };
      const { outputs, ...rest } = done.result;
      return { ...rest, type: done.kind, ...(await outputLinks(outputs, linkFields, mint)) };
    });
  return {
    outputFiles: (completion) => completion.result.outputs,
    storedResult: async (_env, _taskId, completion) => completion.result,
    resultView,
    webhookView: resultView,
  };
}

/**
 * One content kind's entry, with the spec link fields it has. (TypeScript holds WorkerTaskKind
 * invariant in its kind, so the shared shape is handed out as each kind's own.)
 */
export const contentRenderKind = <K extends ContentKind>(linkFields: LinkFields = MEDIA_LINK_FIELDS) =>
  contentRender(linkFields) as unknown as WorkerTaskKind<K>;

/** Fresh signed links for a render's files: each in `files`, and the kind's spec fields. */
async function outputLinks(
  outputs: ContentOutputFile[],
  linkFields: LinkFields,
  mint: MediaUrlMinter,
): Promise<Record<string, unknown>> {
  const links: Record<string, unknown> = {};
  const files: ContentFileLink[] = [];
  for (const output of outputs) {
    const url = await mint(output.object_key);
    if (!url) continue;
    files.push({ role: output.role, content_type: output.content_type, bytes: output.bytes, url });
    const field = linkFields[output.role];
    if (field && !(field in links)) links[field] = url;
  }
  return { ...links, files };
}
