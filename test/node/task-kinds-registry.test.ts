import { describe, expect, it } from "vitest";
import { CONTENT_KIND_STAGES } from "../../inference-node/content/content-kinds.ts";
import { NODE_TASK_KINDS } from "../../inference-node/kinds/index.ts";
import { ContentJob } from "../../protocol/content.ts";
import { CompleteRequest, Lease } from "../../protocol/node.ts";
import { CONTENT_KINDS, kindsOf, TASK_KINDS, TaskRecord } from "../../protocol/task.ts";

/** The kinds a derived union tells apart, read from its variants. */
const variantKinds = (union: { options: readonly { shape: { kind: { value: string } } }[] }) =>
  union.options.map((variant) => variant.shape.kind.value).sort();

const sorted = (kinds: readonly string[]) => [...kinds].sort();

describe("the task-kind registries", () => {
  it("derive every wire union from the one table: each kind is in each, and no other", () => {
    expect(variantKinds(TaskRecord)).toEqual(sorted(TASK_KINDS));
    expect(variantKinds(Lease)).toEqual(sorted(TASK_KINDS));
    expect(variantKinds(CompleteRequest)).toEqual(sorted(TASK_KINDS));
    expect(variantKinds(ContentJob)).toEqual(sorted(CONTENT_KINDS));
  });

  it("give every kind one work class, so exactly one of the node's lease loops asks for it", () => {
    expect(sorted([...kindsOf("speech"), ...kindsOf("render")])).toEqual(sorted(TASK_KINDS));
    expect(sorted(CONTENT_KINDS)).toEqual(sorted(kindsOf("render")));
  });

  it("have a node runner for every kind and content stages for every content kind", () => {
    expect(sorted(Object.keys(NODE_TASK_KINDS))).toEqual(sorted(TASK_KINDS));
    expect(sorted(Object.keys(CONTENT_KIND_STAGES))).toEqual(sorted(CONTENT_KINDS));
    for (const kind of TASK_KINDS) expect(typeof NODE_TASK_KINDS[kind].run).toBe("function");
  });
});
