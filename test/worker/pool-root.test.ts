import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PULL_EVERY_MS, RETRY_MS } from "../../durable-objects/dispatcher/pool-link.ts";
import { workerConfig } from "../../platform/config.ts";
import { partitionOf } from "../../platform/dispatch-routing.ts";
import { dispatcher, poolRoot } from "../../platform/stubs.ts";
import { createKey, resetDispatcher, submissionsEndedAfterEach } from "./helpers.ts";
import { sampleResult, TestNode } from "./node-client.ts";

type Lease = Awaited<ReturnType<TestNode["lease"]>>[number];

/** Runs in the `workers-partitions-cap` project: DISPATCHER_PARTITIONS = 4, MAX_CONCURRENT_TRANSCRIBE_JOBS = 3. */
const PARTITIONS = 4;
const CAP = 3;

const pool = () => workerConfig(env).modelRegistry.default_model;
const partition = (p: number) => dispatcher(env, { workClass: "speech", pool: pool(), partition: p });
const root = () => poolRoot(env, pool());

/** An API key whose owner key falls in partition `p` (keys are random: a few tries find one). */
async function keyAt(p: number): Promise<{ id: string; key: string }> {
  for (;;) {
    const created = await createKey();
    if (partitionOf(created.id, PARTITIONS) === p) return created;
  }
}

/** A node whose home is partition `p`. */
function nodeAt(p: number): TestNode {
  for (let i = 0; ; i++)
    if (partitionOf(`node-${i}`, PARTITIONS) === p) return new TestNode({ node_id: `node-${i}` });
}

/** Leases out in every partition together. */
async function leasesOut(): Promise<number> {
  let total = 0;
  for (let p = 0; p < PARTITIONS; p++)
    total += await runInDurableObject(
      partition(p),
      (_instance, state) => state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM leases").one().n,
    );
  return total;
}

/** Every node asks `rounds` times for up to two tasks without finishing any: the leases they got. */
async function askAll(nodes: TestNode[], rounds: number): Promise<Lease[]> {
  const got: Lease[] = [];
  for (let round = 0; round < rounds; round++)
    for (const node of nodes) got.push(...(await node.lease(2, 0)));
  return got;
}

const { submit, endSubmitted } = submissionsEndedAfterEach();
afterEach(endSubmitted);

beforeEach(async () => {
  expect(workerConfig(env)).toMatchObject({
    dispatcherPartitions: PARTITIONS,
    maxConcurrentTranscribeJobs: CAP,
  });
  await resetDispatcher();
});

describe("a partitioned pool's root under a numeric cap", () => {
  it("never lets the partitions together run more than the cap, and a freed slot serves another partition", async () => {
    const keys = await Promise.all([0, 1, 2, 3].map(keyAt));
    const tasks = [];
    for (const key of keys) for (let i = 0; i < 2; i++) tasks.push(await submit(key.id));
    const nodes = [0, 1, 2, 3].map(nodeAt);
    const leases = await askAll(nodes, 6);
    expect(leases).toHaveLength(CAP);
    expect(await leasesOut()).toBe(CAP);
    expect(await root().held()).toBe(CAP);

    // One lease ends: its partition hands the slot back unless its own line needs it; either way one
    // more task runs, and still no more than the cap.
    expect((await nodes[0]!.complete(leases[0]!.lease_id, sampleResult())).status).toBe(204);
    // A partition refused a slot asks the root again only RETRY_MS later.
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS + 100));
    const more = await askAll(nodes, 6);
    expect(more).toHaveLength(1);
    expect(await leasesOut()).toBe(CAP);
  });

  it("hands a slot freed in one partition to a task waiting in another", async () => {
    const [a, b] = [0, 1];
    const keyA = await keyAt(a);
    for (let i = 0; i < CAP; i++) await submit(keyA.id);
    const nodeA = nodeAt(a);
    const leasesA = await askAll([nodeA], CAP + 2);
    expect(leasesA).toHaveLength(CAP);

    const keyB = await keyAt(b);
    const waiting = await submit(keyB.id);
    const nodeB = nodeAt(b);
    expect(await askAll([nodeB], 3)).toHaveLength(0);

    // B's node long-polls; A's lease ends and its partition hands the slot back (its line is empty), and
    // B's partition, refused before, asks the root again by its alarm and wakes the parked node.
    const parked = nodeB.lease(1, 10_000);
    expect((await nodeA.complete(leasesA[0]!.lease_id, sampleResult())).status).toBe(204);
    const [leaseB] = await parked;
    expect(leaseB?.task_id).toBe(waiting.task_id);
    expect(await leasesOut()).toBe(CAP);
  });

  it("reclaims the budget of a partition that stopped renewing it", async () => {
    const keyA = await keyAt(0);
    for (let i = 0; i < CAP; i++) await submit(keyA.id);
    expect(await askAll([nodeAt(0)], CAP)).toHaveLength(CAP);
    expect(await root().held()).toBe(CAP);
    await runInDurableObject(root(), (_instance, state) => {
      state.storage.sql.exec("UPDATE budgets SET expires_at = ?", Date.now() - 1);
    });
    // The root restarts from its storage (as after a crash) and its alarm takes the expired budget back.
    await runInDurableObject(root(), (_instance, state) => state.abort("restart")).catch(() => undefined);
    expect(await runDurableObjectAlarm(root())).toBe(true);
    expect(await root().held()).toBe(0);
  });

  it("has a restarted partition with leases out renew the holding it learns from the root", async () => {
    const keyA = await keyAt(0);
    for (let i = 0; i < CAP; i++) await submit(keyA.id);
    expect(await askAll([nodeAt(0)], CAP)).toHaveLength(CAP);
    const expiry = () =>
      runInDurableObject(
        root(),
        (_instance, state) =>
          state.storage.sql.exec<{ expires_at: number }>("SELECT expires_at FROM budgets").one().expires_at,
      );
    const before = await expiry();
    // The partition restarts (its holding was memory only) and its alarm comes: it asks the root.
    await runInDurableObject(partition(0), (_instance, state) => state.abort("restart")).catch(
      () => undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await runDurableObjectAlarm(partition(0))).toBe(true);
    expect(await expiry()).toBeGreaterThan(before);
    expect(await root().held()).toBe(CAP);
  });

  it("answers a poll with the whole pool's figures and the task's place in the pool's line", async () => {
    const [a, b] = [0, 1];
    const keyA = await keyAt(a);
    const keyB = await keyAt(b);
    const firstA = await submit(keyA.id);
    const secondA = await submit(keyA.id);
    const onlyB = await submit(keyB.id);
    // The figures are as of a snapshot at most 2 s old: past the second a partition pushes and pulls
    // again, so every poll below reads all three tasks.
    await new Promise((resolve) => setTimeout(resolve, PULL_EVERY_MS + 100));
    // Neither key ran yet and none runs: A's first and B's go first (their order is the tie-break's,
    // the oldest waiting task's seq, then the partition), then A's second.
    const first = await partition(a).stats(firstA.task_id);
    expect(first).toMatchObject({ queued: 3, processing: 0, concurrency: CAP });
    const positions = [first.position, (await partition(b).stats(onlyB.task_id)).position];
    expect(positions.sort()).toEqual([1, 2]);
    expect(await partition(a).stats(secondA.task_id)).toMatchObject({ queued: 3, position: 3 });
  });
});
