/**
 * A lease is usable only by the node identity that took it. Another node's token, even a valid one,
 * gets exactly the answer an unknown lease gets (410 `gone`) on heartbeat, complete, fail, source and
 * output upload, and moves nothing: the lease is not extended, the task not completed, failed or
 * requeued, no output stored, no media read. Every node on the shared NODE_TOKEN is one identity.
 */
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { readTask } from "../../platform/task-store.ts";
import type { Lease } from "../../protocol/node.ts";
import { submitTask } from "../../worker/tasks/submit.ts";
import {
  bearer,
  call,
  createKey,
  createNode,
  dispatcherStub,
  NODE_TOKEN,
  resetDispatcher,
  TRANSCRIBE_PARAMS,
} from "./helpers.ts";
import { sampleResult, TestNode } from "./node-client.ts";

const MEDIA_BYTES = new TextEncoder().encode("RIFF-not-really-audio");

/** A queued transcription of stored media, ready to be leased. */
async function submitStoredMedia(): Promise<string> {
  const owner = await createKey();
  const objectKey = `uploads/${crypto.randomUUID()}/clip.wav`;
  await env.MEDIA.put(objectKey, MEDIA_BYTES);
  const submitted = await submitTask(env, {
    ownerKeyId: owner.id,
    kind: "transcribe",
    lane: "batch",
    params: TRANSCRIBE_PARAMS,
    source: { type: "object", object_key: objectKey },
  });
  return submitted.task_id;
}

async function takeOne(node: TestNode): Promise<Lease> {
  const [lease] = await node.lease();
  if (!lease) throw new Error("no lease granted");
  return lease;
}

/** Every lease-scoped call a node can make, each answered with its status and body. */
async function everyLeaseCall(node: TestNode, token: string, leaseId: string) {
  const answer = async (response: Response) => ({ status: response.status, body: await response.text() });
  return {
    heartbeat: await answer(await node.heartbeat(leaseId, 0.5)),
    partial: await answer(await node.partial(leaseId, 0, ["not my lease"])),
    source: await answer(await call(`/internal/v1/leases/${leaseId}/source`, { headers: bearer(token) })),
    output: await answer(
      await node.uploadOutput(leaseId, "short.mp4", new Uint8Array([1, 2, 3]), "video/mp4"),
    ),
    fail: await answer(await node.fail(leaseId, "decoder_error", "not my lease")),
    complete: await answer(await node.complete(leaseId, sampleResult("stolen"))),
  };
}

beforeEach(async () => {
  await resetDispatcher();
});

describe("lease ownership", () => {
  it("refuses another node's heartbeat, complete, fail, source and output like an unknown lease; the holder still works", async () => {
    const a = await createNode("gpu-a");
    const b = await createNode("gpu-b");
    const nodeA = new TestNode({ node_id: "node-a" }, a.token);
    const nodeB = new TestNode({ node_id: "node-b" }, b.token);
    const taskId = await submitStoredMedia();
    const lease = await takeOne(nodeA);
    expect(lease.task_id).toBe(taskId);
    const before = await dispatcherStub().lookup(lease.lease_id);

    const unknown = await everyLeaseCall(nodeB, b.token, "no-such-lease");
    const foreign = await everyLeaseCall(nodeB, b.token, lease.lease_id);
    for (const [route, answer] of Object.entries(foreign)) {
      expect(answer.status, route).toBe(410);
      expect(answer, route).toEqual(unknown[route as keyof typeof unknown]);
    }

    // Nothing moved: same deadline, still processing, nothing stored under the task's outputs.
    expect(await dispatcherStub().lookup(lease.lease_id)).toEqual(before);
    expect(await readTask(env, taskId)).toMatchObject({ status: "processing" });
    expect((await env.MEDIA.list({ prefix: `outputs/${taskId}/` })).objects).toHaveLength(0);

    // The holder still works on it, to the end.
    expect((await nodeA.heartbeat(lease.lease_id, 0.5)).status).toBe(200);
    const source = await call(`/internal/v1/leases/${lease.lease_id}/source`, { headers: bearer(a.token) });
    expect(source.status).toBe(200);
    expect(new Uint8Array(await source.arrayBuffer())).toEqual(MEDIA_BYTES);
    expect((await nodeA.complete(lease.lease_id, sampleResult("mine"))).status).toBe(204);
    expect(await readTask(env, taskId)).toMatchObject({ status: "done", result: { text: "mine" } });
  });

  it("keeps a per-node lease from the shared token, and a shared-token lease from a per-node token", async () => {
    const a = await createNode("gpu-a");
    const nodeA = new TestNode({ node_id: "node-a" }, a.token);
    const sharedNode = new TestNode({ node_id: "node-shared" }, NODE_TOKEN);

    await submitStoredMedia();
    const perNodeLease = await takeOne(nodeA);
    expect((await sharedNode.heartbeat(perNodeLease.lease_id, 0.5)).status).toBe(410);
    expect((await sharedNode.fail(perNodeLease.lease_id, "decoder_error", "x")).status).toBe(410);

    await submitStoredMedia();
    const sharedLease = await takeOne(sharedNode);
    expect((await nodeA.heartbeat(sharedLease.lease_id, 0.5)).status).toBe(410);
    expect((await nodeA.complete(sharedLease.lease_id, sampleResult())).status).toBe(410);
  });

  it("treats every node on the shared NODE_TOKEN as one identity", async () => {
    const first = new TestNode({ node_id: "shared-1" }, NODE_TOKEN);
    const second = new TestNode({ node_id: "shared-2" }, NODE_TOKEN);
    const taskId = await submitStoredMedia();
    const lease = await takeOne(first);
    expect((await second.heartbeat(lease.lease_id, 0.5)).status).toBe(200);
    expect((await second.complete(lease.lease_id, sampleResult("shared"))).status).toBe(204);
    expect(await readTask(env, taskId)).toMatchObject({ status: "done" });
  });

  it("records the identity's id beside its name on the lease", async () => {
    const a = await createNode("gpu-a");
    await submitStoredMedia();
    const lease = await takeOne(new TestNode({ node_id: "node-a" }, a.token));
    expect(await dispatcherStub().lookup(lease.lease_id)).toMatchObject({
      node_id: "node-a",
      node_name: "gpu-a",
      identity_id: a.id,
    });
  });
});
