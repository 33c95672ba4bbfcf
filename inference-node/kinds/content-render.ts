import type { ContentKind } from "../../protocol/task.ts";
import { renderTask } from "../pipeline/render-task.ts";
import type { NodeTaskKind } from "./node-task-kind.ts";

/**
 * A content render: the content engine renders it (its own stages per kind, in
 * inference-node/content/content-kinds.ts) and its files are uploaded under the task.
 */
const contentRender: NodeTaskKind<ContentKind> = {
  run: (lease, deps, context) => renderTask(lease, deps, context),
};

/**
 * One content kind's entry: they all run alike. (TypeScript holds NodeTaskKind invariant in its kind,
 * so the shared entry is handed out as each kind's own.)
 */
export const contentRenderKind = <K extends ContentKind>() => contentRender as unknown as NodeTaskKind<K>;
