import pino from "pino";
import { describe, expect, it } from "vitest";
import { LeaseLoop } from "../../inference-node/lease-loop.ts";
import { NodeHeartbeat } from "../../inference-node/node-heartbeat.ts";
import type { WorkerClient } from "../../inference-node/worker-client.ts";
import type { CompleteRequest, NodeHeartbeatRequest } from "../../protocol/node.ts";
import { leasesOneAtATime } from "../helpers/lease-stand-in.ts";
import { NODE_HEALTH } from "../helpers/node-health.ts";

const completion = { kind: "slide" } as unknown as CompleteRequest;

/**
 * A WorkerClient stand-in handing out `count` leases one ask at a time, whose completions are held
 * until the test lets them through. Records the order of asks, task starts and completions.
 */
function slowCompletions(count: number) {
  const events: string[] = [];
  const heldCompletions: (() => void)[] = [];
  const heartbeatLeases = new Set<string>();
  const client = {
    lease: leasesOneAtATime(count, "slide", events),
    heartbeatNode: async (body: NodeHeartbeatRequest) => {
      for (const l of body.leases) heartbeatLeases.add(l.lease_id);
      return body.leases.map((l) => ({
        lease_id: l.lease_id,
        state: "extended",
        expires_at: Date.now() + 60_000,
      }));
    },
    complete: (leaseId: string) =>
      new Promise<void>((resolve) => {
        events.push(`complete ${leaseId} sent`);
        heldCompletions.push(() => {
          events.push(`complete ${leaseId} answered`);
          resolve();
        });
      }),
    fail: async () => undefined,
  };
  return { client: client as unknown as WorkerClient, events, heldCompletions, heartbeatLeases };
}

describe("LeaseLoop slots", () => {
  it("asks for the next lease while a finished task's completion is still on its way, one task working at a time", async () => {
    const { client, events, heldCompletions, heartbeatLeases } = slowCompletions(2);
    let working = 0;
    let mostWorking = 0;
    const loop = new LeaseLoop({
      client,
      health: () => NODE_HEALTH,
      run: async (lease) => {
        working++;
        mostWorking = Math.max(mostWorking, working);
        events.push(`run ${lease.lease_id}`);
        await new Promise((resolve) => setTimeout(resolve, 30));
        working--;
        return completion;
      },
      kinds: ["slide"],
      concurrency: 1,
      heartbeat: new NodeHeartbeat(client, () => NODE_HEALTH, 10, pino({ level: "silent" })),
      stallMs: 60_000,
      logger: pino({ level: "silent" }),
      pollWaitMs: 50,
    });
    loop.start();
    await expect.poll(() => events.includes("run lease-2"), { timeout: 5_000 }).toBe(true);
    // the second task was leased and started before the first one's completion was answered
    expect(events).not.toContain("complete lease-1 answered");
    expect(events.slice(0, 4)).toEqual(["ask 1", "run lease-1", "complete lease-1 sent", "ask 1"]);
    expect(mostWorking).toBe(1);
    // a lease whose completion is in flight is still the node's: its heartbeat keeps it alive
    await expect.poll(() => heartbeatLeases.has("lease-1"), { timeout: 2_000 }).toBe(true);
    expect(loop.activeTasks).toBe(2); // one working, one reporting
    for (const answer of heldCompletions.splice(0)) answer();
    await expect.poll(() => heldCompletions.length, { timeout: 2_000 }).toBe(1);
    for (const answer of heldCompletions.splice(0)) answer();
    await expect.poll(() => loop.activeTasks, { timeout: 2_000 }).toBe(0);
    await loop.drain(100);
  });
});
