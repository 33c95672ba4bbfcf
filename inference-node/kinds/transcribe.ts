import { transcribe } from "../pipeline/transcribe-task.ts";
import type { NodeTaskKind } from "./node-task-kind.ts";

/** A transcription: decoded, recognised and post-processed by the speech pipeline. */
export const transcribeKind: NodeTaskKind<"transcribe"> = {
  run: async (lease, deps, context) => ({
    kind: "transcribe",
    result: await transcribe(lease, deps, context),
  }),
};
