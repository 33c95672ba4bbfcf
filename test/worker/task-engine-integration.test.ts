import {
  createExecutionContext,
  createScheduledController,
  runDurableObjectAlarm,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { db } from "../../platform/db.ts";
import { jobs } from "../../platform/schema.ts";
import { jobState } from "../../platform/stubs.ts";
import type { Lease } from "../../protocol/node.ts";
import worker from "../../worker/index.ts";
import type { TaskStatusResponse } from "../../worker/schemas/tasks.ts";
import { recoverOrphanedTasks } from "../../worker/tasks/recover.ts";
import {
  bearer,
  call,
  createKey,
  createTranscription,
  deliver,
  dispatcherStub,
  expireAllLeases,
  resetDispatcher,
  submitTranscription,
} from "./helpers.ts";
import { sampleResult, TestNode } from "./node-client.ts";

async function poll(taskId: string, key: string): Promise<TaskStatusResponse> {
  const response = await call(`/transcribe/${taskId}`, { headers: bearer(key) });
  expect(response.status).toBe(200);
  return (await response.json()) as TaskStatusResponse;
}

beforeEach(resetDispatcher);

describe("task life: queued -> processing -> done", () => {
  it("runs a task through a node and shows queue stats only while active", async () => {
    const { id, key } = await createKey();
    const task = await createTranscription(id);
    await deliver([task.task_id]);

    const queued = await poll(task.task_id, key);
    expect(queued).toMatchObject({ status: "queued", result: null, error: null });
    expect(queued.queue).toEqual({ queued: 1, processing: 0, position: 1, concurrency: 2 });

    const node = new TestNode();
    const [lease] = await node.lease();
    expect(lease).toMatchObject({ task_id: task.task_id, kind: "transcribe", attempt: 1, lane: "batch" });
    const processing = await poll(task.task_id, key);
    expect(processing.status).toBe("processing");
    expect(processing.queue).toEqual({ queued: 0, processing: 1, position: null, concurrency: 2 });

    expect((await node.heartbeat(lease!.lease_id, 40)).status).toBe(200);
    expect((await node.complete(lease!.lease_id, sampleResult("hello"))).status).toBe(204);
    const done = await poll(task.task_id, key);
    expect(done.status).toBe("done");
    expect(done.queue).toBeNull();
    expect(done.result).toMatchObject({ text: "hello", language: "Vietnamese", speakers_pending: false });
  });

  it("keeps a task id valid after its fast-store entry expired (falls back to D1)", async () => {
    const { id, key } = await createKey();
    const task = await createTranscription(id);
    await deliver([task.task_id]);
    const node = new TestNode();
    const [lease] = await node.lease();
    await node.complete(lease!.lease_id, sampleResult("kept"));

    const fastStore = jobState(env, task.task_id);
    expect(await runDurableObjectAlarm(fastStore)).toBe(true);
    expect(await fastStore.read()).toBeNull();

    const after = await poll(task.task_id, key);
    expect(after).toMatchObject({ status: "done", result: { text: "kept" } });
  });

  it("answers 404 for an unknown task and for another key's task", async () => {
    const owner = await createKey("owner");
    const other = await createKey("other");
    const task = await createTranscription(owner.id);
    expect((await call(`/transcribe/${task.task_id}`, { headers: bearer(other.key) })).status).toBe(404);
    const unknown = await call("/transcribe/no-such-task", { headers: bearer(owner.key) });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: "task not found", code: "not_found" });
  });

  it("refuses a result that does not match the result schema and keeps the task running", async () => {
    const { id, key } = await createKey();
    const task = await createTranscription(id);
    await deliver([task.task_id]);
    const node = new TestNode();
    const [lease] = await node.lease();
    const response = await node.complete(lease!.lease_id, { text: 42 });
    expect(response.status).toBe(422);
    const body = (await response.json()) as { detail: { loc: unknown[] }[] };
    expect(body.detail[0]?.loc.slice(0, 2)).toEqual(["body", "result"]);
    expect((await poll(task.task_id, key)).status).toBe("processing");
  });
});

/**
 * Gives the Dispatcher `slots` speech slots (MAX_CONCURRENT_TRANSCRIBE_JOBS) until the returned
 * function restores its configuration; the tests' wrangler.toml has 2, too few to tell a key's share
 * from round-robin.
 */
async function withTranscribeSlots(slots: number): Promise<() => Promise<void>> {
  const stub = dispatcherStub();
  const original = await runInDurableObject(stub, (instance) => {
    const object = instance as unknown as { env: Env };
    const before = object.env;
    object.env = { ...before, MAX_CONCURRENT_TRANSCRIBE_JOBS: String(slots) };
    return before;
  });
  return async () => {
    await runInDurableObject(stub, (instance) => {
      (instance as unknown as { env: Env }).env = original;
    });
  };
}

describe("Dispatcher fairness and positions", () => {
  it("does not let one key's many jobs starve another key's one job", async () => {
    const heavy = await createKey("heavy");
    const light = await createKey("light");
    const heavyTasks = [];
    for (let i = 0; i < 12; i++) heavyTasks.push(await createTranscription(heavy.id));
    const lightTask = await createTranscription(light.id);
    await deliver([...heavyTasks.map((t) => t.task_id), lightTask.task_id]);

    // Round robin: heavy's first job, then light's job, then the rest of heavy's.
    expect((await poll(lightTask.task_id, light.key)).queue?.position).toBe(2);
    expect((await poll(heavyTasks[0]!.task_id, heavy.key)).queue?.position).toBe(1);
    expect((await poll(heavyTasks[5]!.task_id, heavy.key)).queue?.position).toBe(7);

    const node = new TestNode();
    const leases = await node.lease(2);
    expect(leases.map((l) => l.task_id)).toEqual([heavyTasks[0]!.task_id, lightTask.task_id]);
  });

  it("gives each freed slot to the key with the fewest running tasks, up to its share", async () => {
    const slots = 4;
    const restore = await withTranscribeSlots(slots);
    try {
      const a = await createKey("a");
      const b = await createKey("b");
      const ownerOf = new Map<string, string>();
      const create = async (owner: string) => {
        const task = await createTranscription(owner);
        ownerOf.set(task.task_id, owner);
        return task;
      };
      const aTasks = [];
      for (let i = 0; i < 8; i++) aTasks.push(await create(a.id));
      await deliver(aTasks.map((t) => t.task_id));
      const node = new TestNode();
      // A lone key uses every slot.
      const running: Lease[] = await node.lease(slots);
      expect(running.map((l) => l.task_id)).toEqual(aTasks.slice(0, slots).map((t) => t.task_id));

      const bTasks = [];
      for (let i = 0; i < 6; i++) bTasks.push(await create(b.id));
      await deliver(bTasks.map((t) => t.task_id));
      // Nothing is preempted; B, with no task running, is served before A's waiting tasks.
      expect((await dispatcherStub().stats(aTasks[slots]!.task_id)).position).toBe(slots + 1);
      expect((await dispatcherStub().stats(bTasks[slots - 1]!.task_id)).position).toBe(slots);

      const count = (owner: string) => running.filter((l) => ownerOf.get(l.task_id) === owner).length;
      const share = slots / 2;
      // A's tasks finish one by one (the oldest first); each freed slot goes to the key with fewer running.
      for (let round = 0; round < 8; round++) {
        const [finished] = running.splice(0, 1);
        expect((await node.complete(finished!.lease_id, sampleResult())).status).toBe(204);
        const granted = await node.lease(1);
        expect(granted).toHaveLength(1);
        running.push(...granted);
        if (round >= share - 1) {
          // B holds its share from the second freed slot on; while both wait, neither holds more.
          expect([count(a.id), count(b.id)]).toEqual([share, share]);
        }
      }
    } finally {
      await restore();
    }
  });

  it("serves the interactive lane ahead of batch work", async () => {
    const { id } = await createKey();
    const batch = await createTranscription(id, "batch");
    const interactive = await createTranscription(id, "interactive");
    await deliver([batch.task_id, interactive.task_id]);
    const stats = await dispatcherStub().stats(batch.task_id);
    expect(stats.position).toBe(2);
    const [first] = await new TestNode().lease(1);
    expect(first?.task_id).toBe(interactive.task_id);
  });

  it("never grants more leases than MAX_CONCURRENT_TRANSCRIBE_JOBS", async () => {
    const { id } = await createKey();
    const tasks = [];
    for (let i = 0; i < 4; i++) tasks.push(await createTranscription(id));
    await deliver(tasks.map((t) => t.task_id));
    const node = new TestNode();
    expect(await node.lease(5)).toHaveLength(2);
    expect(await node.lease(5)).toHaveLength(0);
    const stats = await dispatcherStub().stats();
    expect(stats).toMatchObject({ queued: 2, processing: 2, concurrency: 2 });
  });

  it("wakes a long-polling node as soon as work arrives", async () => {
    const { id } = await createKey();
    const node = new TestNode();
    const started = Date.now();
    const waiting = node.lease(1, 5_000);
    const task = await createTranscription(id);
    await deliver([task.task_id]);
    const leases = await waiting;
    expect(leases.map((l) => l.task_id)).toEqual([task.task_id]);
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it("answers an idle long poll with no lease after the wait", async () => {
    const started = Date.now();
    expect(await new TestNode().lease(1, 300)).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });
});

describe("nothing is lost", () => {
  it("ignores duplicate Queue deliveries, before and after the task ran", async () => {
    const { id, key } = await createKey();
    const task = await createTranscription(id);
    await deliver([task.task_id]);
    await deliver([task.task_id, task.task_id]);
    expect((await dispatcherStub().stats()).queued).toBe(1);

    const node = new TestNode();
    const [lease] = await node.lease(2);
    await deliver([task.task_id]);
    expect((await dispatcherStub().stats()).queued).toBe(0);
    await node.complete(lease!.lease_id, sampleResult());

    const result = await deliver([task.task_id]);
    expect(result.explicitAcks).toHaveLength(1);
    expect(await node.lease(2)).toEqual([]);
    expect((await poll(task.task_id, key)).status).toBe("done");
  });

  it("re-queues a task whose node died and fails it after MAX_TASK_ATTEMPTS", async () => {
    const { id, key } = await createKey();
    const task = await createTranscription(id);
    await deliver([task.task_id]);
    const node = new TestNode();
    const maxAttempts = Number(env.MAX_TASK_ATTEMPTS);

    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const [lease] = await node.lease();
      expect(lease?.attempt).toBe(attempt);
      await expireAllLeases();
      const stale = await node.heartbeat(lease!.lease_id, 10);
      expect(stale.status).toBe(410);
      const status = await poll(task.task_id, key);
      expect(status.status).toBe(attempt < maxAttempts ? "queued" : "failed");
    }
    const failed = await poll(task.task_id, key);
    expect(failed.error).toMatch(/after 3 attempts.*lease expired/);
    expect(failed.queue).toBeNull();
    expect(await node.lease()).toEqual([]);
  });

  it("puts a re-queued task back at its old place in line", async () => {
    const { id, key } = await createKey();
    const first = await createTranscription(id);
    const second = await createTranscription(id);
    await deliver([first.task_id, second.task_id]);
    const [lease] = await new TestNode().lease(1);
    expect(lease?.task_id).toBe(first.task_id);
    await expireAllLeases();
    expect((await poll(first.task_id, key)).queue?.position).toBe(1);
    expect((await poll(second.task_id, key)).queue?.position).toBe(2);
  });

  it("re-queues a retryable failure and fails a permanent one with its code and message", async () => {
    const { id, key } = await createKey();
    const task = await createTranscription(id);
    await deliver([task.task_id]);
    const node = new TestNode();
    const [first] = await node.lease();
    expect(await (await node.fail(first!.lease_id, "decoder_error", "ffmpeg crashed")).json()).toEqual({
      requeued: true,
    });
    expect((await poll(task.task_id, key)).status).toBe("queued");

    const [second] = await node.lease();
    expect(second?.attempt).toBe(2);
    expect(await (await node.fail(second!.lease_id, "media_unreadable", "unsupported codec")).json()).toEqual(
      {
        requeued: false,
      },
    );
    expect(await poll(task.task_id, key)).toMatchObject({
      status: "failed",
      error: "unsupported codec",
      error_code: "media_unreadable",
    });
    expect((await node.complete(second!.lease_id, sampleResult())).status).toBe(410);
  });

  it("hands a submitted task to a waiting node at once, and ignores the Queue's later copy", async () => {
    const { id, key } = await createKey();
    const node = new TestNode();
    const waiting = node.lease(1, 10_000);
    const task = await submitTranscription(id);
    const [lease] = await waiting;
    expect(lease?.task_id).toBe(task.task_id);
    await node.complete(lease!.lease_id, sampleResult());
    // The Queue delivers its copy within its batch window; the finished task must not run again.
    expect(await node.lease(1, 2_500)).toEqual([]);
    expect((await poll(task.task_id, key)).status).toBe("done");
  });

  it("fails a task whose message was dead-lettered, with a clear error", async () => {
    const { id, key } = await createKey();
    const task = await createTranscription(id);
    await deliver([task.task_id], "voxedge-tasks-dlq");
    expect(await poll(task.task_id, key)).toMatchObject({
      status: "failed",
      error: expect.stringMatching(/could not be scheduled/),
    });
  });
});

describe("recovery sweep", () => {
  it("hands the Dispatcher an old queued task whose Queue message was lost", async () => {
    const { id } = await createKey();
    const orphan = await createTranscription(id);
    const _fresh = await createTranscription(id);
    await db(env)
      .update(jobs)
      .set({ created_at: Date.now() - 10 * 60_000 })
      .where(eq(jobs.task_id, orphan.task_id));
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController(), env, ctx);
    await waitOnExecutionContext(ctx);
    const leases = await new TestNode().lease(2);
    expect(leases.map((l) => l.task_id)).toEqual([orphan.task_id]);
    expect(await recoverOrphanedTasks(env)).toBe(0);
  });

  it("finds an orphan behind more than a page of old tasks the Dispatcher already holds", async () => {
    const { id } = await createKey();
    const held = [];
    for (let i = 0; i < 205; i++) held.push((await createTranscription(id)).task_id);
    for (let i = 0; i < held.length; i += 100) {
      expect((await deliver(held.slice(i, i + 100))).retryMessages).toEqual([]);
    }
    const orphan = await createTranscription(id);
    const old = Date.now() - 10 * 60_000;
    // The held backlog is older than the orphan, so the oldest page holds no orphan at all.
    for (const [i, taskId] of [...held, orphan.task_id].entries()) {
      await db(env)
        .update(jobs)
        .set({ created_at: old + i })
        .where(eq(jobs.task_id, taskId));
    }
    expect(await recoverOrphanedTasks(env)).toBe(1);
    expect(await dispatcherStub().unknownTasks([orphan.task_id, held[0]!, "never-seen"])).toEqual([
      "never-seen",
    ]);
    expect(await recoverOrphanedTasks(env)).toBe(0);
  }, 60_000);
});
