/**
 * One heartbeat per node (`POST /internal/v1/heartbeat`): every lease the node holds in one call, each
 * answered on its own: extended, cancelled (the task is ended and the lease let go) or gone (unknown,
 * expired, or another identity's, which must not learn it exists, nor extend it).
 */
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { readTask } from "../../platform/task-store.ts";
import { cancelTask } from "../../worker/tasks/leasing.ts";
import {
  call,
  createKey,
  createNode,
  dispatcherStub,
  NODE_TOKEN,
  resetDispatcher,
  submitTranscription,
} from "./helpers.ts";
import { TestNode } from "./node-client.ts";

beforeEach(async () => {
  await resetDispatcher();
});

function beat(token: string, body: unknown): Promise<Response> {
  return call("/internal/v1/heartbeat", {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("the per-node heartbeat", () => {
  it("extends every lease of the node in one call, reports each task's progress, and ends a cancelled one", async () => {
    const { id } = await createKey();
    for (let i = 0; i < 2; i++) await submitTranscription(id);
    const node = new TestNode({ node_id: "multi" });
    // Two leases: the test deployment's concurrency cap.
    const leases = await node.lease(2);
    expect(leases).toHaveLength(2);
    const [kept, cancelled] = leases as [(typeof leases)[0], (typeof leases)[0]];
    const before = await dispatcherStub().lookup(kept.lease_id);
    expect(await cancelTask(env, { ...cancelled, owner_key_id: id })).toBe(true);
    await new Promise((r) => setTimeout(r, 5));

    const response = await beat(NODE_TOKEN, {
      node: node.health,
      leases: [
        { lease_id: kept.lease_id, progress: 40, step: "transcribing" },
        { lease_id: cancelled.lease_id, progress: 10 },
        { lease_id: "no-such-lease", progress: 1 },
      ],
    });
    expect(response.status).toBe(200);
    const { leases: answers } = (await response.json()) as {
      leases: { lease_id: string; state: string; expires_at: number | null }[];
    };
    expect(answers.map((a) => [a.lease_id, a.state])).toEqual([
      [kept.lease_id, "extended"],
      [cancelled.lease_id, "cancel"],
      ["no-such-lease", "gone"],
    ]);
    expect(answers[0]!.expires_at).toBeGreaterThan(before!.expires_at);
    expect(answers[2]!.expires_at).toBeNull();
    expect((await dispatcherStub().lookup(kept.lease_id))?.expires_at).toBe(answers[0]!.expires_at);
    // The cancelled lease was let go; the kept one carries its progress to its task.
    expect(await dispatcherStub().lookup(cancelled.lease_id)).toBeNull();
    expect(await readTask(env, cancelled.task_id)).toMatchObject({
      status: "failed",
      error_code: "cancelled",
    });
    expect(await readTask(env, kept.task_id)).toMatchObject({ status: "processing", progress: 40 });
  });

  it("answers another identity's lease exactly like an unknown one, and does not extend it", async () => {
    const { id } = await createKey();
    await submitTranscription(id);
    const a = await createNode("gpu-a");
    const b = await createNode("gpu-b");
    const [lease] = await new TestNode({ node_id: "node-a" }, a.token).lease();
    const before = await dispatcherStub().lookup(lease!.lease_id);
    const response = await beat(b.token, {
      node: { ...new TestNode().health, node_id: "node-b" },
      leases: [
        { lease_id: lease!.lease_id, progress: 99 },
        { lease_id: "no-such-lease", progress: 99 },
      ],
    });
    expect(response.status).toBe(200);
    const { leases: answers } = (await response.json()) as { leases: { state: string; expires_at: null }[] };
    expect(answers.map((a) => [a.state, a.expires_at])).toEqual([
      ["gone", null],
      ["gone", null],
    ]);
    expect(await dispatcherStub().lookup(lease!.lease_id)).toEqual(before);
    expect(await readTask(env, lease!.task_id)).toMatchObject({ progress: 0 });
  });

  it("refuses a malformed heartbeat with 422: no leases, a lease twice, more than 64", async () => {
    const health = new TestNode().health;
    const many = Array.from({ length: 65 }, (_, i) => ({ lease_id: `l-${i}`, progress: 0 }));
    for (const leases of [
      [],
      [
        { lease_id: "x", progress: 1 },
        { lease_id: "x", progress: 2 },
      ],
      many,
    ]) {
      const response = await beat(NODE_TOKEN, { node: health, leases });
      expect(response.status, JSON.stringify(leases).slice(0, 60)).toBe(422);
    }
    expect((await beat("not-a-token", { node: health, leases: [{ lease_id: "x" }] })).status).toBe(401);
  });
});
