import type { CompleteRequest, LeaseOf } from "../../protocol/node.ts";
import type { TaskContract, TaskKind, WorkClass } from "../../protocol/task.ts";
import type { ContentDeps } from "../content/run-content-task.ts";
import type { TaskContext } from "../lease-loop.ts";
import type { TranscribeDeps } from "../pipeline/transcribe-task.ts";
import type { WorkerClient } from "../worker-client.ts";

/** What each work class's lease loop hands its tasks: one loop per class, so one set of deps each. */
export interface ClassDeps {
  speech: TranscribeDeps;
  render: { content: ContentDeps; client: WorkerClient };
}

/** The deps of the loop a kind runs in. */
export type KindDeps<K extends TaskKind> = ClassDeps[TaskContract<K>["workClass"] & WorkClass];

/** How the node runs one task kind: its lease in, its completion out (throwing fails the task). */
export interface NodeTaskKind<K extends TaskKind> {
  run(lease: LeaseOf<K>, deps: KindDeps<K>, context: TaskContext): Promise<CompleteRequest>;
}
