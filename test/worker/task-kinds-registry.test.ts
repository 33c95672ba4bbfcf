import { describe, expect, it } from "vitest";
import { TASK_KINDS } from "../../protocol/task.ts";
import { WORKER_TASK_KINDS } from "../../worker/tasks/kinds/index.ts";

describe("the Worker's task-kind registry", () => {
  it("has one entry per kind of the protocol's table, each declaring all its behaviour", () => {
    expect(Object.keys(WORKER_TASK_KINDS).sort()).toEqual([...TASK_KINDS].sort());
    for (const kind of TASK_KINDS) {
      const entry = WORKER_TASK_KINDS[kind];
      for (const part of ["outputFiles", "storedResult", "resultView", "webhookView"] as const) {
        expect(typeof entry[part], `${kind}.${part}`).toBe("function");
      }
    }
  });
});
