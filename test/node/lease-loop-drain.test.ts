import { createServer } from "node:net";
import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { LeaseLoop } from "../../inference-node/lease-loop.ts";
import { NodeHeartbeat } from "../../inference-node/node-heartbeat.ts";
import { WorkerClient } from "../../inference-node/worker-client.ts";
import { NODE_HEALTH } from "../helpers/node-health.ts";

/** A loopback port nothing listens on: the Worker is down. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("LeaseLoop drain", () => {
  it("stops at once while it is backing off from a Worker that is down", async () => {
    const retries: number[] = [];
    const logger = pino(
      { level: "warn" },
      new Writable({
        write(line, _encoding, done) {
          const entry = JSON.parse(String(line)) as { msg: string; retry_ms?: number };
          if (entry.msg === "lease poll failed" && entry.retry_ms) retries.push(entry.retry_ms);
          done();
        },
      }),
    );
    const client = new WorkerClient(`http://127.0.0.1:${await closedPort()}`, "token");
    const loop = new LeaseLoop({
      client,
      health: () => NODE_HEALTH,
      run: async () => {
        throw new Error("no task can be leased from a Worker that is down");
      },
      kinds: ["transcribe"],
      concurrency: 1,
      heartbeat: new NodeHeartbeat(client, () => NODE_HEALTH, 1_000, logger),
      stallMs: 60_000,
      logger,
    });
    loop.start();
    // Refused polls back off with jitter under ceilings of 0.5, 1, 2, 4 s: wait until the loop sleeps
    // its fourth wait (2 to 4 s) before its next try.
    await expect.poll(() => retries.length, { timeout: 15_000, interval: 50 }).toBe(4);

    const started = Date.now();
    await loop.drain(30_000);
    expect(Date.now() - started).toBeLessThan(1_000);
    [500, 1_000, 2_000, 4_000].forEach((ceiling, i) => {
      expect(retries[i]).toBeGreaterThanOrEqual(ceiling / 2);
      expect(retries[i]).toBeLessThanOrEqual(ceiling);
    });
  });
});
