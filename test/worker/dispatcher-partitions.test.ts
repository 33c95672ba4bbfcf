import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Dispatcher } from "../../durable-objects/dispatcher/dispatcher.ts";
import { PULL_EVERY_MS, PUSH_EVERY_MS } from "../../durable-objects/dispatcher/pool-link.ts";
import { workerConfig } from "../../platform/config.ts";
import { partitionOf } from "../../platform/dispatch-routing.ts";
import { SHARED_NODE } from "../../platform/node-identity.ts";
import { dispatcher } from "../../platform/stubs.ts";
import { readTask } from "../../platform/task-store.ts";
import { NODE_HEALTH } from "../helpers/node-health.ts";
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
    // Each ask samples two of the other three partitions, and steals once the pool's figures (up to 2 s
    // behind) show the task: asks a tenth of a second apart find it within 60.
    let stolen: string | undefined;
    for (let ask = 0; ask < 60 && !stolen; ask++) {
      stolen = (await node.lease(2, 0))[0]?.task_id;
      if (!stolen) await sleep(100);
    }
    expect(stolen).toBe(task.task_id);
    // The pool's concurrency is the sum of the partitions' home slots: the node's two count once (read
    // past the second a poll's figures may lag).
    await sleep(PULL_EVERY_MS + 100);
    expect((await partition(home).stats()).concurrency).toBe(2);
    expect(await rowsOf(owner.partition, "leases")).toBe(1);
  }, 15_000);

  it("forward a task no node of its partition waits for to a node parked at another home, one per ask", async () => {
    const home = 0;
    const node = new TestNode({ node_id: nodeIdAt(home) });
    // The node parks at its home only; the partition's next summary (within a second) tells the pool.
    const parked = node.lease(1, 20_000);
    await sleep(PUSH_EVERY_MS + PULL_EVERY_MS);
    const owner = await keyOutside(home);
    const first = await submit(owner.id);
    const second = await submit(owner.id);
    // Its one slot gets one of the two, long before its wait would end.
    const leases = await parked;
    expect(leases.map((lease) => lease.task_id)).toEqual([first.task_id]);
    expect(leases[0]?.lease_id.split(".")[0]).toBe(partition(owner.partition).id.toString());
    expect(await partition(owner.partition).stats(second.task_id)).toMatchObject({ position: 1 });
  }, 15_000);

  it("send a node that parks later to a task that found no node parked, however its ask sampled", async () => {
    const home = 0;
    const owner = await keyOutside(home);
    const task = await submit(owner.id);
    // Its ask sampled no partition to steal from: its partition's alarm, retrying the forward, finds it.
    const node = { ...NODE_HEALTH, node_id: nodeIdAt(home) };
    const ask = { node, capacity: 1, wait_ms: 20_000, kinds: ["transcribe" as const] };
    const answer = await partition(home).leaseOrSteal(ask, SHARED_NODE, []);
    expect(answer).toEqual({ leases: [], steal: owner.partition });
    const [stolen] = await partition(owner.partition).lease(
      { ...ask, wait_ms: 0 },
      SHARED_NODE,
      undefined,
      false,
    );
    expect(stolen?.task_id).toBe(task.task_id);
  }, 15_000);

  it("forget the serve of a key whose line has emptied", async () => {
    const owner = await keyOutside(-1);
    await submit(owner.id);
    await submit(owner.id);
    const node = new TestNode({ node_id: nodeIdAt(owner.partition) });
    const servesKept = () =>
      runInDurableObject(
        partition(owner.partition),
        (instance: Dispatcher) =>
          (instance as unknown as { pool: { serves: Map<string, number> } }).pool.serves.size,
      );
    expect(await node.lease(1, 0)).toHaveLength(1);
    expect(await servesKept()).toBe(1);
    expect(await node.lease(1, 0)).toHaveLength(1);
    // The next summary (at most a second later; a poll pushes it) drops the key gone from the line.
    await sleep(PUSH_EVERY_MS);
    await partition(owner.partition).stats();
    expect(await servesKept()).toBe(0);
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
