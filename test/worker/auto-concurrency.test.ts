import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { workerConfig } from "../../platform/config.ts";
import { createKey, dispatcherStub, resetDispatcher, submitTranscription } from "./helpers.ts";
import { TestNode } from "./node-client.ts";

const AUTO = { MAX_CONCURRENT_TRANSCRIBE_JOBS: "auto", MAX_CONCURRENT_CONTENT_JOBS: "auto" };

/** The speech Dispatcher runs with both caps `auto` until its reset (resetDispatcher restarts it). */
async function withAutoConcurrency(): Promise<void> {
  await runInDurableObject(dispatcherStub(), (instance) => {
    const object = instance as unknown as { env: Env };
    object.env = { ...object.env, ...AUTO };
  });
}

beforeEach(resetDispatcher);

describe("MAX_CONCURRENT_TRANSCRIBE_JOBS = auto", () => {
  it("is accepted for both caps; a number still is one", () => {
    expect(workerConfig({ ...env, ...AUTO })).toMatchObject({
      maxConcurrentTranscribeJobs: "auto",
      maxConcurrentContentJobs: "auto",
    });
    expect(workerConfig(env)).toMatchObject({ maxConcurrentTranscribeJobs: 2, maxConcurrentContentJobs: 1 });
    expect(() => workerConfig({ ...env, MAX_CONCURRENT_TRANSCRIBE_JOBS: "many" })).toThrow(
      /MAX_CONCURRENT_TRANSCRIBE_JOBS/,
    );
  });

  it("runs as many tasks at once as two nodes of different capacity offer, and reports that figure", async () => {
    await withAutoConcurrency();
    const { id } = await createKey();
    const tasks = [];
    for (let i = 0; i < 6; i++) tasks.push(await submitTranscription(id));
    expect(await dispatcherStub().stats()).toMatchObject({ queued: 6, processing: 0, concurrency: 0 });

    const big = new TestNode({ node_id: "big" });
    const small = new TestNode({ node_id: "small" });
    expect(await big.lease(3, 0)).toHaveLength(3);
    expect(await dispatcherStub().stats()).toMatchObject({ queued: 3, processing: 3, concurrency: 3 });
    expect(await small.lease(1, 0)).toHaveLength(1);
    expect(await dispatcherStub().stats(tasks.at(-1)!.task_id)).toMatchObject({
      queued: 2,
      processing: 4,
      concurrency: 4,
      position: 2,
    });
    // A busy node's offer counts the leases it holds: asking for one more makes it 4, the fleet 5.
    expect(await big.lease(1, 0)).toHaveLength(1);
    expect(await dispatcherStub().stats()).toMatchObject({ queued: 1, processing: 5, concurrency: 5 });
  });
});
