import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { jobState } from "../../platform/stubs.ts";
import { changeTaskStatus, readPermanentTask, readTask } from "../../platform/task-store.ts";
import { TranscriptionResult } from "../../protocol/transcription.ts";
import {
  createKey,
  createTranscription,
  deliver,
  dispatcherStub,
  expireAllLeases,
  resetDispatcher,
} from "./helpers.ts";
import { sampleResult, TestNode } from "./node-client.ts";

/**
 * A lease can outlive its task: a node's `complete` writes `done` to both stores and then releases the
 * lease, and a crash (or a restart of the platform) between the two leaves the lease to expire. The
 * expiry must then see that the task ended, not run it again or overwrite its result.
 */

/** The permanent store's status and result (the D1 row, and the R2 object its result_key names). */
async function d1Status(taskId: string) {
  const record = await readPermanentTask(env, taskId);
  return record && { status: record.status, result: record.result };
}

beforeEach(resetDispatcher);

describe("a lease that expires after its task ended", () => {
  it("keeps a done task done, and never leases it again, when the release was lost", async () => {
    const { id } = await createKey();
    const task = await createTranscription(id);
    await deliver([task.task_id]);
    const node = new TestNode();
    const [lease] = await node.lease();
    // The Worker's half of `complete` up to the crash: the stores hold the result, the lease is still out.
    await changeTaskStatus(env, task.task_id, {
      status: "done",
      result: TranscriptionResult.parse(sampleResult("kept")),
    });

    await expireAllLeases();

    expect((await readTask(env, task.task_id))?.status).toBe("done");
    expect(await d1Status(task.task_id)).toMatchObject({ status: "done", result: { text: "kept" } });
    expect(await dispatcherStub().stats()).toMatchObject({ queued: 0, processing: 0 });
    expect(await node.lease(2)).toEqual([]);
    // A late Queue copy of the task is ignored too.
    await deliver([task.task_id]);
    expect(await node.lease(2)).toEqual([]);
    expect((await node.heartbeat(lease!.lease_id, 50)).status).toBe(410);
  });

  it("does not turn a done task into node_lost on its last attempt", async () => {
    const { id } = await createKey();
    const task = await createTranscription(id);
    await deliver([task.task_id]);
    const node = new TestNode();
    const attempts = Number(env.MAX_TASK_ATTEMPTS);
    for (let attempt = 1; attempt < attempts; attempt++) {
      await node.lease();
      await expireAllLeases();
    }
    const [last] = await node.lease();
    expect(last?.attempt).toBe(attempts);
    await changeTaskStatus(env, task.task_id, {
      status: "done",
      result: TranscriptionResult.parse(sampleResult("last")),
    });

    await expireAllLeases();

    expect(await d1Status(task.task_id)).toMatchObject({ status: "done", result: { text: "last" } });
    expect((await readTask(env, task.task_id))?.error_code).toBeNull();
  });

  it("keeps a failed task failed when its lease expires after the failure was stored", async () => {
    const { id } = await createKey();
    const task = await createTranscription(id);
    await deliver([task.task_id]);
    const node = new TestNode();
    await node.lease();
    await changeTaskStatus(env, task.task_id, {
      status: "failed",
      failure: { code: "media_unreadable", message: "unsupported codec" },
    });

    await expireAllLeases();

    expect(await readTask(env, task.task_id)).toMatchObject({
      status: "failed",
      error_code: "media_unreadable",
    });
    expect(await node.lease(2)).toEqual([]);
  });

  it("refuses any later status write to an ended task, in D1 and in the fast store", async () => {
    const { id } = await createKey();
    const task = await createTranscription(id);
    const done = await changeTaskStatus(env, task.task_id, {
      status: "done",
      result: TranscriptionResult.parse(sampleResult("final")),
    });
    expect(done?.status).toBe("done");
    expect(await changeTaskStatus(env, task.task_id, { status: "queued" })).toBeNull();
    expect(
      await changeTaskStatus(env, task.task_id, {
        status: "failed",
        failure: { code: "node_lost", message: "late" },
      }),
    ).toBeNull();
    expect(await d1Status(task.task_id)).toMatchObject({ status: "done", result: { text: "final" } });
    // Two writes that passed D1 in one order can reach the fast store in the other: the end wins there.
    await jobState(env, task.task_id).write({ ...done!, status: "processing", result: null });
    expect((await readTask(env, task.task_id))?.status).toBe("done");
  });
});
