import type { TaskKind } from "../../../protocol/task.ts";
import { contentRenderKind } from "./content-render.ts";
import { noteTranslationKind } from "./note-translation.ts";
import { transcribeKind } from "./transcribe.ts";
import type { WorkerTaskKind } from "./worker-task-kind.ts";

/** The Worker's registry of task kinds: one row per kind of the protocol's table (the type insists). */
export const WORKER_TASK_KINDS: { readonly [K in TaskKind]: WorkerTaskKind<K> } = {
  transcribe: transcribeKind,
  shorts: contentRenderKind<"shorts">(),
  quiz_video: contentRenderKind<"quiz_video">(),
  slide: contentRenderKind<"slide">({ pptx: "slide_url", pdf: "slide_pdf_url" }),
  quiz: contentRenderKind<"quiz">({}),
  study_guide: contentRenderKind<"study_guide">({}),
  flashcards: contentRenderKind<"flashcards">({}),
  mindmap: contentRenderKind<"mindmap">({}),
  podcast: contentRenderKind<"podcast">({ audio: "audio_url" }),
  video_overview: contentRenderKind<"video_overview">({ video: "video_url" }),
  note_translation: noteTranslationKind,
};

/**
 * One kind's Worker behaviour. Called with a kind taken from a record or completion, whose own type is
 * the union of kinds: the entry then takes any record or completion, and the caller passes the one the
 * kind came from.
 */
export function workerTaskKind<K extends TaskKind>(kind: K): WorkerTaskKind<K> {
  return WORKER_TASK_KINDS[kind] as WorkerTaskKind<K>;
}
