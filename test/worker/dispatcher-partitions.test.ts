import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PULL_EVERY_MS } from "../../durable-objects/dispatcher/pool-link.ts";
import { workerConfig } from "../../platform/config.ts";
import { partitionOf } from "../../platform/dispatch-routing.ts";
import { dispatcher } from "../../platform/stubs.ts";
import { readTask } from "../../platform/task-store.ts";
import { bearer, call, createKey, deliver, resetDispatcher, submissionsEndedAfterEach } from "./helpers.ts";
import { sampleResult, TestNode } from "./node-client.ts";

/** Runs in the `workers-partitions` project: DISPATCHER_PARTITIONS = 4, MAX_CONCURRENT_TRANSCRIBE_JOBS = auto. */
const PARTITIONS = 4;

const partition = (p: number) =>
  dispatcher(env, { workClass: "speech", pool: workerConfig(env).modelRegistry.default_model, partition: p });

/**
 * Rows of one partition's table (`waiting`, `leases`): the partition's own line, where a poll's figures
 * are the whole pool's as of a snapshot up to 2 s old.
 */
function rowsOf(p: number, table: "waiting" | "leases"): Promise<number> {
  return runInDurableObject(
    partition(p),
    (_instance, state) => state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n,
  );
}

/** An API key whose partition is not `avoid` (keys are random: a few tries find one). */
async function keyOutside(avoid: number): Promise<{ id: string; key: string; partition: number }> {
  for (;;) {
    const created = await createKey();
    const p = partitionOf(created.id, PARTITIONS);
    if (p !== avoid) return { ...created, partition: p };
  }
}

/** A node id whose home is partition `p`. */
function nodeIdAt(p: number): string {
  for (let i = 0; ; i++) if (partitionOf(`node-${i}`, PARTITIONS) === p) return `node-${i}`;
}

const { submit, endSubmitted } = submissionsEndedAfterEach();
afterEach(endSubmitted);

beforeEach(async () => {
  expect(workerConfig(env).dispatcherPartitions).toBe(PARTITIONS);
  await resetDispatcher();
});

describe("key-affine Dispatcher partitions", () => {
  it("keep a key's tasks in its partition's line, idempotently", async () => {
    const owner = await keyOutside(-1);
    const first = await submit(owner.id);
    const second = await submit(owner.id);
    // A second hand-off of the same task (the Queue's delivery after the fast path) is a duplicate there.
    await deliver([first.task_id]);
    expect(await partition(owner.partition).stats(second.task_id)).toMatchObject({ queued: 2, position: 2 });
    for (let p = 0; p < PARTITIONS; p++) {
      if (p !== owner.partition) expect(await rowsOf(p, "waiting")).toBe(0);
    }
  });

  it("lease a task to its home node, and its calls reach the issuing partition", async () => {
    const owner = await keyOutside(-1);
    const task = await submit(owner.id);
    const node = new TestNode({ node_id: nodeIdAt(owner.partition) });
    const [lease] = await node.lease(1, 0);
    expect(lease?.task_id).toBe(task.task_id);
    expect(lease?.lease_id.split(".")[0]).toBe(partition(owner.partition).id.toString());
    expect((await node.heartbeat(lease!.lease_id, 50)).status).toBe(200);
    expect((await node.complete(lease!.lease_id, sampleResult())).status).toBe(204);
    expect((await readTask(env, task.task_id))?.status).toBe("done");
    expect([await rowsOf(owner.partition, "waiting"), await rowsOf(owner.partition, "leases")]).toEqual([
      0, 0,
    ]);
  });

  it("let a node steal from a partition other than its home, counting its slots at home only", async () => {
    const home = 0;
    const owner = await keyOutside(home);
    const task = await submit(owner.id);
    const node = new TestNode({ node_id: nodeIdAt(home) });
    // Each ask draws its other partition at random among the three: within 40 asks the task's comes up.
    let stolen: string | undefined;
    for (let ask = 0; ask < 40 && !stolen; ask++) stolen = (await node.lease(2, 0))[0]?.task_id;
    expect(stolen).toBe(task.task_id);
    // The pool's concurrency is the sum of the partitions' home slots: the node's two count once (read
    // past the second a poll's figures may lag).
    await new Promise((resolve) => setTimeout(resolve, PULL_EVERY_MS + 100));
    expect((await partition(home).stats()).concurrency).toBe(2);
    expect(await rowsOf(owner.partition, "leases")).toBe(1);
  });

  it("cancel a deleted task in its partition", async () => {
    const owner = await keyOutside(-1);
    const task = await submit(owner.id);
    const response = await call(`/transcribe/${task.task_id}`, {
      method: "DELETE",
      headers: bearer(owner.key),
    });
    expect(response.status).toBeLessThan(300);
    expect(await rowsOf(owner.partition, "waiting")).toBe(0);
  });
});
