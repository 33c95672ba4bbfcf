import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { dispatcher } from "../../platform/stubs.ts";
import { readTask } from "../../platform/task-store.ts";
import {
  createKey,
  dispatcherStub,
  resetDispatcher,
  resetScheduler,
  submitTranscription,
} from "./helpers.ts";
import { TestNode } from "./node-client.ts";

/** A model the registry does not list: its tasks have their own scheduler, reset here by hand. */
const OTHER_MODEL = "whisper-small";
const otherPool = () => dispatcher(env, { workClass: "speech", pool: OTHER_MODEL });

beforeEach(async () => {
  await resetDispatcher();
  await resetScheduler(otherPool());
});

const baseNode = (id: string) => new TestNode({ node_id: id });
const otherNode = (id: string) =>
  new TestNode({ node_id: id, asr_model: OTHER_MODEL, models_ready: [OTHER_MODEL] });
const bothNode = (id: string) => new TestNode({ node_id: id, models_ready: ["whisper-base", OTHER_MODEL] });

describe("one scheduler per work class and model pool", () => {
  it("gives a task only to a node that serves its model", async () => {
    const { id } = await createKey();
    const task = await submitTranscription(id, { params: { model_id: OTHER_MODEL } });
    expect(await baseNode("base").lease(1, 0)).toEqual([]);
    expect(await dispatcherStub().stats()).toMatchObject({ queued: 0 });
    const [lease] = await otherNode("other").lease(1, 0);
    expect(lease?.task_id).toBe(task.task_id);
    expect((await readTask(env, task.task_id))?.status).toBe("processing");
  });

  it("wakes a node waiting on two pools with the first task of either, and ends its other wait", async () => {
    const { id } = await createKey();
    const node = bothNode("both");
    const waiting = node.lease(1, 10_000);
    // The waits are parked once a second node's immediate ask finds nothing (one object's calls in order).
    await otherNode("probe").lease(1, 0);
    await baseNode("probe-base").lease(1, 0);
    const task = await submitTranscription(id, { params: { model_id: OTHER_MODEL } });
    const [lease] = await waiting;
    expect(lease?.task_id).toBe(task.task_id);
    // The default pool's wait was withdrawn: its next task waits for the next ask, not a gone waiter.
    const next = await submitTranscription(id);
    expect(await dispatcherStub().stats(next.task_id)).toMatchObject({ queued: 1, processing: 0 });
    expect((await baseNode("base").lease(1, 0))[0]?.task_id).toBe(next.task_id);
  });

  it("fills a node's capacity from every pool it serves", async () => {
    const { id } = await createKey();
    const base = await submitTranscription(id);
    const other = await submitTranscription(id, { params: { model_id: OTHER_MODEL } });
    const leases = await bothNode("both").lease(3, 0);
    expect(leases.map((lease) => lease.task_id).sort()).toEqual([base.task_id, other.task_id].sort());
  });

  it("routes a lease's calls to the object that issued it; a made-up issuer is a gone lease", async () => {
    const { id } = await createKey();
    await submitTranscription(id, { params: { model_id: OTHER_MODEL } });
    const node = otherNode("other");
    const [lease] = await node.lease(1, 0);
    expect((await node.heartbeat(lease!.lease_id, 40)).status).toBe(200);
    const [issuer, random] = lease!.lease_id.split(".");
    expect(issuer).toBe(otherPool().id.toString());
    const foreign = `${dispatcherStub().id.toString()}.${random}`;
    const madeUp = `${"0".repeat(64)}.${random}`;
    for (const leaseId of [foreign, madeUp, random!]) {
      expect((await node.heartbeat(leaseId, 40)).status).toBe(410);
    }
  });
});
