import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
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
 * The Dispatcher is one object; the runtime may reset it at any moment (a deploy, an eviction, a crash
 * of its host). What it holds in memory (long-polling nodes) is lost with it; what it must not lose
 * (the waiting line, the leases, their deadlines) lives in its SQLite storage and its alarm.
 * abortAllDurableObjects() resets every object of the test's Worker and keeps their storage.
 */

function node(node_id: string): TestNode {
  return new TestNode({ node_id });
}

/** The Dispatcher's lease deadlines, by task. */
async function leaseDeadlines(): Promise<Map<string, number>> {
  return runInDurableObject(dispatcherStub(), (_instance, state) => {
    const rows = state.storage.sql
      .exec<{ task_id: string; expires_at: number }>("SELECT task_id, expires_at FROM leases")
      .toArray();
    return new Map(rows.map((row) => [row.task_id, row.expires_at]));
  });
}

beforeEach(resetDispatcher);

describe("the Dispatcher reset mid-lease", () => {
  it("keeps its waiting line, order and leases; the dead node's lease expires and its task is retried", async () => {
    const { id } = await createKey();
    const tasks = [];
    for (let i = 0; i < 5; i++) tasks.push(await createTranscription(id));
    await deliver(tasks.map((task) => task.task_id));
    const survivor = node("survivor");
    const victim = node("victim");
    const [kept] = await survivor.lease(1);
    const [orphaned] = await victim.lease(1);
    expect([kept?.task_id, orphaned?.task_id]).toEqual([tasks[0]!.task_id, tasks[1]!.task_id]);
    const before = await dispatcherStub().stats(tasks[4]!.task_id);
    const deadlines = await leaseDeadlines();
    const instanceBefore = await runInDurableObject(dispatcherStub(), (instance) => instance);

    await abortAllDurableObjects();

    // A new instance (the old one's memory is gone) ...
    expect(await runInDurableObject(dispatcherStub(), (instance) => instance)).not.toBe(instanceBefore);

    // ... over the same storage: the same line, the same leases and deadlines, the alarm still set.
    expect(await dispatcherStub().stats(tasks[4]!.task_id)).toEqual(before);
    expect(before).toMatchObject({ queued: 3, processing: 2, position: 3 });
    expect(await leaseDeadlines()).toEqual(deadlines);
    expect(await runInDurableObject(dispatcherStub(), (_i, state) => state.storage.getAlarm())).toBe(
      Math.min(...deadlines.values()),
    );

    // The surviving node goes on with its lease; the victim node never comes back.
    expect((await survivor.heartbeat(kept!.lease_id, 50)).status).toBe(200);
    expect((await survivor.complete(kept!.lease_id, sampleResult("kept"))).status).toBe(204);
    // The victim's lease runs out: the alarm that was set before the reset takes it back.
    await pastLeaseDeadlines(dispatcherStub(), true);
    expect(await runDurableObjectAlarm(dispatcherStub())).toBe(true);
    expect((await readTask(env, orphaned!.task_id))?.status).toBe("queued");

    // Everything left runs, the orphaned task first (its old place in line), each exactly once.
    const order: string[] = [];
    for (;;) {
      const [lease] = await survivor.lease(1);
      if (!lease) break;
      order.push(lease.task_id);
      expect((await survivor.complete(lease.lease_id, sampleResult(lease.task_id))).status).toBe(204);
    }
    expect(order).toEqual([tasks[1], tasks[2], tasks[3], tasks[4]].map((task) => task!.task_id));
    for (const task of tasks) expect((await readTask(env, task.task_id))?.status).toBe("done");
  });

  it("answers a node that was long-polling through the reset, and its next poll gets the work", async () => {
    const { id } = await createKey();
    const poller = node("poller");
    const waitMs = 3_000;
    const held = poller.lease(1, waitMs).then(
      (leases) => ({ leases, error: null }),
      (error: unknown) => ({ leases: [], error: String(error) }),
    );
    // Let the poll reach the Dispatcher and wait there.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    await abortAllDurableObjects();
    // Work arrives at the new instance while the old one still holds the poll.
    const task = await submitTranscription(id);
    const outcome = await held;
    // The held call ends by its own deadline at the latest (an error or an empty answer), never hangs.
    expect(Date.now() - started).toBeLessThan(waitMs + 2_000);
    const runs = [...outcome.leases];
    for (;;) {
      const leases = await poller.lease(1, 500);
      if (leases.length === 0) break;
      runs.push(...leases);
    }
    expect(runs.map((lease) => lease.task_id)).toEqual([task.task_id]);
    expect((await poller.complete(runs[0]!.lease_id, sampleResult())).status).toBe(204);
    expect((await readTask(env, task.task_id))?.status).toBe("done");
  });

  it("loses no task handed over while the Dispatcher is being reset", async () => {
    const { id } = await createKey();
    const tasks = [];
    const resets = [];
    for (let i = 0; i < 8; i++) {
      tasks.push(await submitTranscription(id));
      if (i % 3 === 1) resets.push(abortAllDurableObjects());
    }
    await Promise.all(resets);
    // Each message is delivered once more, as the Queue does for one whose consumer crashed.
    await deliver(tasks.map((task) => task.task_id));
    const poller = node("after-reset");
    const ran = new Set<string>();
    for (;;) {
      const leases = await poller.lease(2);
      if (leases.length === 0) break;
      for (const lease of leases) {
        expect(ran.has(lease.task_id)).toBe(false);
        ran.add(lease.task_id);
        expect((await poller.complete(lease.lease_id, sampleResult())).status).toBe(204);
      }
    }
    expect([...ran].sort()).toEqual(tasks.map((task) => task.task_id).sort());
  });
});
