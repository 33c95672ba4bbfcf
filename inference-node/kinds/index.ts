import type { LeaseOf } from "../../protocol/node.ts";
import { kindsOf, type TaskKind, type WorkClass, workClassOf } from "../../protocol/task.ts";
import type { LeaseLoopOptions } from "../lease-loop.ts";
import { TaskFailureError } from "../task-failure.ts";
import { contentRenderKind } from "./content-render.ts";
import type { ClassDeps, KindDeps, NodeTaskKind } from "./node-task-kind.ts";
import { transcribeKind } from "./transcribe.ts";

/** The node's registry of task kinds: how each kind of the protocol's table is run (the type insists). */
export const NODE_TASK_KINDS: { readonly [K in TaskKind]: NodeTaskKind<K> } = {
  transcribe: transcribeKind,
  shorts: contentRenderKind<"shorts">(),
  quiz_video: contentRenderKind<"quiz_video">(),
  slide: contentRenderKind<"slide">(),
  quiz: contentRenderKind<"quiz">(),
  study_guide: contentRenderKind<"study_guide">(),
  flashcards: contentRenderKind<"flashcards">(),
  mindmap: contentRenderKind<"mindmap">(),
  podcast: contentRenderKind<"podcast">(),
  video_overview: contentRenderKind<"video_overview">(),
  note_translation: contentRenderKind<"note_translation">(),
};

/**
 * What one work class's lease loop asks for and runs: the kinds of that class, each by its own entry.
 * A lease of another class (a Worker that offered one anyway) fails as `unsupported_kind`.
 */
export function leaseLoopWork<C extends WorkClass>(
  workClass: C,
  deps: ClassDeps[C],
): Pick<LeaseLoopOptions, "kinds" | "run"> {
  return {
    kinds: kindsOf(workClass),
    run: (lease, context) => {
      if (workClassOf(lease.kind) !== workClass) {
        throw new TaskFailureError(
          "unsupported_kind",
          `this loop of the node does not run ${lease.kind} tasks`,
        );
      }
      const kind = NODE_TASK_KINDS[lease.kind] as NodeTaskKind<TaskKind>;
      return kind.run(lease as LeaseOf<TaskKind>, deps as KindDeps<TaskKind>, context);
    },
  };
}
