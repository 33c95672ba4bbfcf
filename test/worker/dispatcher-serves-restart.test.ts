/**
 * A grant no longer writes its key's last serve: a lease keeps the serve that made it, and the keys'
 * serves are saved together every SAVE_SERVES_EVERY serves (durable-objects/dispatcher/fair-queue.ts).
 * Across a restart of the Dispatcher the rotation's order is therefore exact while a lease or a save holds
 * each key's last serve, and otherwise loses exactly the serves the module documents.
 *
 * Every case lines up two keys so that their order after the restart tells which serves survived: key B's
 * first task is the oldest and is served first, then A's; once both are released (running 0 each) the rule
 * serves the key served longest ago, B, while with their serves lost both read "never served" and the older
 * head goes first, A's.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Dispatcher, DispatchTask } from "../../durable-objects/dispatcher/dispatcher.ts";
import { SAVE_SERVES_EVERY } from "../../durable-objects/dispatcher/fair-queue.ts";
import { SHARED_NODE } from "../../platform/node-identity.ts";
import type { LeaseAsk } from "../../protocol/node.ts";
import { NODE_HEALTH } from "../helpers/node-health.ts";

type Scheduler = DurableObjectStub<Dispatcher>;

function scheduler(name: string): Scheduler {
  return env.DISPATCHER.get(env.DISPATCHER.idFromName(`serves-restart/${name}`));
}

const task = (task_id: string, owner: string, lane: DispatchTask["lane"] = "batch"): DispatchTask => ({
  task_id,
  owner,
  lane,
  kind: "transcribe",
});

/** One grant to a node asking for one task; the lease id and the task it got. */
async function grantOne(stub: Scheduler): Promise<{ leaseId: string; taskId: string }> {
  const ask: LeaseAsk = {
    node: { ...NODE_HEALTH, node_id: "n-serves" },
    capacity: 1,
    wait_ms: 0,
    kinds: ["transcribe"],
  };
  const [lease] = await stub.lease(ask, SHARED_NODE);
  if (!lease) throw new Error("no task was granted");
  return { leaseId: lease.lease_id, taskId: lease.task_id };
}

/**
 * Restarts the object over its storage: its memory (the line, the serves not saved) is rebuilt from it.
 * The old stub is broken by the abort; the returned one reaches the new instance.
 */
async function restart(name: string): Promise<Scheduler> {
  await runInDurableObject(scheduler(name), (_instance, state) => state.abort("restart")).catch(
    () => undefined,
  );
  return scheduler(name);
}

/** B's oldest task, then A's two, then B's second: B is served first, then A. */
async function lineUpTwoKeys(stub: Scheduler): Promise<[string, string]> {
  for (const [id, owner] of [
    ["b1", "key-b"],
    ["a1", "key-a"],
    ["a2", "key-a"],
    ["b2", "key-b"],
  ] as const)
    await stub.enqueue(task(id, owner));
  const first = await grantOne(stub);
  const second = await grantOne(stub);
  expect([first.taskId, second.taskId]).toEqual(["b1", "a1"]);
  return [first.leaseId, second.leaseId];
}

describe("the rotation's serves across a Dispatcher restart", () => {
  it("keeps the order exact while the leases that made the last serves are still out", async () => {
    let stub = scheduler("leases-out");
    const leases = await lineUpTwoKeys(stub);
    stub = await restart("leases-out");
    for (const leaseId of leases) await stub.release(leaseId, "finished");
    expect((await grantOne(stub)).taskId).toBe("b2");
  });

  it("keeps the order exact once SAVE_SERVES_EVERY serves have saved them, their leases ended", async () => {
    let stub = scheduler("saved");
    // Another key's serves first, so that A's grant is serve number SAVE_SERVES_EVERY, which saves.
    for (let i = 0; i < SAVE_SERVES_EVERY - 2; i++) {
      await stub.enqueue(task(`f${i}`, "key-f"));
      await stub.release((await grantOne(stub)).leaseId, "finished");
    }
    const leases = await lineUpTwoKeys(stub);
    for (const leaseId of leases) await stub.release(leaseId, "finished");
    stub = await restart("saved");
    expect((await grantOne(stub)).taskId).toBe("b2");
  });

  it("saves after a restart the serves that only running leases held, so their end loses nothing", async () => {
    let stub = scheduler("held-then-saved");
    const leases = await lineUpTwoKeys(stub);
    stub = await restart("held-then-saved");
    for (const leaseId of leases) await stub.release(leaseId, "finished");
    // Serves 3 to SAVE_SERVES_EVERY (interactive tasks, served ahead of A's and B's waiting ones): the
    // last one saves, B's and A's serves (their leases gone) included.
    for (let i = 0; i < SAVE_SERVES_EVERY - 2; i++) {
      await stub.enqueue(task(`f${i}`, "key-f", "interactive"));
      await stub.release((await grantOne(stub)).leaseId, "finished");
    }
    stub = await restart("held-then-saved");
    expect((await grantOne(stub)).taskId).toBe("b2");
  });

  it("loses the serves of ended leases made since the last save: those keys rejoin as never served", async () => {
    let stub = scheduler("lost");
    const leases = await lineUpTwoKeys(stub);
    for (const leaseId of leases) await stub.release(leaseId, "finished");
    stub = await restart("lost");
    // The documented reorder: B would go first; both read "never served", so A's older head does.
    expect((await grantOne(stub)).taskId).toBe("a2");
    // Each key's own FIFO and the line itself are untouched.
    expect((await grantOne(stub)).taskId).toBe("b2");
  });
});
