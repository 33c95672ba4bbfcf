import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { readTask } from "../../platform/task-store.ts";
import {
  createKey,
  createTranscription,
  deliver,
  dispatcherStub,
  pastLeaseDeadlines,
  resetDispatcher,
  submitTranscription,
} from "./helpers.ts";
import { sampleResult, TestNode } from "./node-client.ts";

/**
 * The Queue delivers at least once, and under faults much more than once: redeliveries after a consumer
 * crash, the direct hand-off and the Queue's copy, the recovery sweep. However many copies arrive, and
 * whenever, a task runs exactly once.
 */

const COPIES_PER_BATCH = 25;
const CONCURRENT_BATCHES = 8;

/** One storm: CONCURRENT_BATCHES batches of COPIES_PER_BATCH copies of the same message, at once. */
async function storm(taskId: string): Promise<void> {
  const batches = Array.from({ length: CONCURRENT_BATCHES }, () =>
    deliver(Array.from({ length: COPIES_PER_BATCH }, () => taskId)),
  );
  for (const result of await Promise.all(batches)) {
    // Every copy is acknowledged: none is retried into yet more copies.
    expect(result.retryMessages).toEqual([]);
    expect(result.explicitAcks).toHaveLength(COPIES_PER_BATCH);
  }
}

/** How many rows the Dispatcher holds for a task: in the waiting line and as leases. */
async function dispatcherRows(taskId: string): Promise<{ waiting: number; leased: number }> {
  return runInDurableObject(dispatcherStub(), (_instance, state) => {
    const count = (table: string) =>
      state.storage.sql
        .exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE task_id = ?`, taskId)
        .one().n;
    return { waiting: count("waiting"), leased: count("leases") };
  });
}

/** Leases every task on offer with several nodes, as long as any is granted. */
async function drainLeases(nodes: TestNode[]) {
  const granted = [];
  for (;;) {
    const round = (await Promise.all(nodes.map((node) => node.lease(4)))).flat();
    if (round.length === 0) return granted;
    granted.push(...round);
  }
}

const nodes = ["storm-a", "storm-b", "storm-c"].map((node_id) => new TestNode({ node_id }));

beforeEach(resetDispatcher);

describe("a duplicate-delivery storm", () => {
  it("runs a task exactly once when its message arrives 200 times before, during and after its run", async () => {
    const { id } = await createKey();
    const task = await createTranscription(id);

    await storm(task.task_id);
    expect(await dispatcherRows(task.task_id)).toEqual({ waiting: 1, leased: 0 });
    expect((await dispatcherStub().stats()).queued).toBe(1);

    const leases = await drainLeases(nodes);
    expect(leases.map((lease) => lease.task_id)).toEqual([task.task_id]);
    await storm(task.task_id);
    expect(await dispatcherRows(task.task_id)).toEqual({ waiting: 0, leased: 1 });
    expect(await drainLeases(nodes)).toEqual([]);

    expect((await nodes[0]!.complete(leases[0]!.lease_id, sampleResult("once"))).status).toBe(204);
    await storm(task.task_id);
    expect(await drainLeases(nodes)).toEqual([]);
    expect(await dispatcherRows(task.task_id)).toEqual({ waiting: 0, leased: 0 });
    expect(await readTask(env, task.task_id)).toMatchObject({ status: "done", result: { text: "once" } });
  });

  it("keeps one place in line for a task whose lease expired, however many copies arrive", async () => {
    const { id } = await createKey();
    const task = await createTranscription(id);
    await deliver([task.task_id]);
    const [first] = await drainLeases(nodes);
    await runInDurableObject(await pastLeaseDeadlines(dispatcherStub()), (instance) => instance.alarm());
    await storm(task.task_id);
    expect(await dispatcherRows(task.task_id)).toEqual({ waiting: 1, leased: 0 });

    const second = await drainLeases(nodes);
    expect(second.map((lease) => [lease.task_id, lease.attempt])).toEqual([[task.task_id, 2]]);
    expect((await nodes[1]!.complete(first!.lease_id, sampleResult("stale"))).status).toBe(410);
    expect((await nodes[1]!.complete(second[0]!.lease_id, sampleResult("retried"))).status).toBe(204);
    await storm(task.task_id);
    expect(await drainLeases(nodes)).toEqual([]);
    expect(await readTask(env, task.task_id)).toMatchObject({ status: "done", result: { text: "retried" } });
  });

  it("runs each of many submitted tasks once while every message is delivered many times over", async () => {
    const { id } = await createKey();
    // The direct hand-off plus the Queue's own copy are already two deliveries of each.
    const tasks = [];
    for (let i = 0; i < 12; i++) tasks.push(await submitTranscription(id));
    const ids = tasks.map((task) => task.task_id);
    const copies = ids.flatMap((taskId) => [taskId, taskId, taskId]);
    await Promise.all([deliver(copies), deliver(copies.reverse()), deliver(copies)]);

    const runs = new Map<string, number>();
    // Capacity is MAX_CONCURRENT_TRANSCRIBE_JOBS at a time: lease, storm again, complete, until empty.
    for (;;) {
      const round = await drainLeases(nodes);
      if (round.length === 0) break;
      await Promise.all([deliver(ids), deliver(ids)]);
      for (const lease of round) {
        runs.set(lease.task_id, (runs.get(lease.task_id) ?? 0) + 1);
        expect((await nodes[0]!.complete(lease.lease_id, sampleResult(lease.task_id))).status).toBe(204);
      }
      await deliver(ids);
    }
    expect([...runs.keys()].sort()).toEqual([...ids].sort());
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    for (const taskId of ids) {
      expect(await readTask(env, taskId)).toMatchObject({ status: "done", result: { text: taskId } });
    }
  });
});
