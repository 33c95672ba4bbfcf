import pino from "pino";
import { describe, expect, it } from "vitest";
import { LeaseLoop } from "../../inference-node/lease-loop.ts";
import { NodeHeartbeat } from "../../inference-node/node-heartbeat.ts";
import { shutDownNode } from "../../inference-node/node-shutdown.ts";
import { MtStatus } from "../../inference-node/translate/mt-status.ts";
import type { WorkerClient } from "../../inference-node/worker-client.ts";
import { loadModel } from "../../native/index.ts";
import type { CompleteRequest } from "../../protocol/node.ts";
import { leasesOneAtATime } from "../helpers/lease-stand-in.ts";
import { NODE_HEALTH } from "../helpers/node-health.ts";
import { microModelPath } from "../native/helpers.ts";

// A node restarts itself when every slot of a lease loop is held by work that ignored its stop
// (EXIT_SLOTS_EXHAUSTED). Its shutdown released the model only after every running decode returned,
// so a decode that never returns kept that node from ever exiting.

function logged() {
  const lines: { msg: string }[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

/** A lease loop whose one task (a 150 ms job) completes; the Worker is a stand-in recording completions. */
function oneTaskLoop(logger: pino.Logger, completed: string[]) {
  const client = {
    lease: leasesOneAtATime(1, "transcribe", []),
    heartbeatNode: async () => [],
    complete: async (leaseId: string) => {
      completed.push(leaseId);
    },
    partial: async () => undefined,
    fail: async () => undefined,
  } as unknown as WorkerClient;
  return new LeaseLoop({
    client,
    health: () => NODE_HEALTH,
    run: async (_lease, context) => {
      context.progress(50);
      await new Promise((resolve) => setTimeout(resolve, 150));
      return { kind: "transcribe" } as unknown as CompleteRequest;
    },
    kinds: ["transcribe"],
    concurrency: 1,
    heartbeat: new NodeHeartbeat(client, () => NODE_HEALTH, 1_000, logger),
    logger,
    pollWaitMs: 50,
    stallMs: 60_000,
  });
}

/** The catalog previews' build as main.ts starts it: it ends once its stop is aborted. */
function previewsBuild() {
  const stop = new AbortController();
  const published = new Promise((resolve) => stop.signal.addEventListener("abort", resolve));
  return { stop, published };
}

describe("a node's shutdown", () => {
  it("lets the running task finish, stops translation and the previews, and releases the model", async () => {
    const { logger, lines } = logged();
    const completed: string[] = [];
    const loop = oneTaskLoop(logger, completed);
    const model = await loadModel(await microModelPath(), { threads: 1 });
    const mt = new MtStatus(null, logger);
    const previews = previewsBuild();
    loop.start();
    await expect.poll(() => loop.activeTasks, { timeout: 2_000 }).toBe(1);

    const { modelReleased } = await shutDownNode(
      { loops: [loop], live: null, mt, previews, model },
      5_000,
      logger,
    );
    expect(modelReleased).toBe(true);
    expect(model.disposed).toBe(true);
    expect(completed).toEqual(["lease-1"]);
    expect(previews.stop.signal.aborted).toBe(true);
    expect(lines.map((line) => line.msg)).not.toContain(
      "a decode did not return: exiting without releasing the model",
    );
  });

  it("does not wait past its drain time for a decode that has not returned", async () => {
    const { logger, lines } = logged();
    const model = await loadModel(await microModelPath(), { threads: 1 });
    // ten minutes of noise with no timestamps: 20 windows of a few hundred tokens, many seconds
    const noise = Float32Array.from({ length: 16_000 * 600 }, () => Math.random() * 0.2 - 0.1);
    const stopDecode = new AbortController();
    const decode = model.transcribe(noise, {
      language: "en",
      timestamps: false,
      temperatureInc: 0,
      signal: stopDecode.signal,
    });
    const decodeEnded = decode.then(
      () => "returned",
      () => "stopped",
    );
    expect(model.pending).toBe(1);

    const started = performance.now();
    const { modelReleased } = await shutDownNode(
      { loops: [], live: null, mt: new MtStatus(null, logger), previews: previewsBuild(), model },
      300,
      logger,
    );
    const tookMs = performance.now() - started;
    expect(modelReleased).toBe(false);
    expect(tookMs).toBeGreaterThanOrEqual(290);
    expect(tookMs).toBeLessThan(3_000);
    expect(lines.map((line) => line.msg)).toContain(
      "a decode did not return: exiting without releasing the model",
    );
    expect(model.pending).toBe(1); // the decode really was still running

    stopDecode.abort();
    expect(await decodeEnded).toBe("stopped");
    await expect.poll(() => model.pending, { timeout: 5_000 }).toBe(0);
  });
});
