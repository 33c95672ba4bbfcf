/**
 * What the Dispatcher's serve-order suites share (dispatcher-serves-restart, dispatcher-owners-prune):
 * a named Dispatcher, its restart over its own storage, a one-task grant, and two keys lined up so that
 * their order after a restart tells which serves survived.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { Dispatcher, DispatchTask } from "../../durable-objects/dispatcher/dispatcher.ts";
import { SHARED_NODE } from "../../platform/node-identity.ts";
import type { LeaseAsk } from "../../protocol/node.ts";
import { NODE_HEALTH } from "../helpers/node-health.ts";

export type Scheduler = DurableObjectStub<Dispatcher>;

export function scheduler(name: string): Scheduler {
  return env.DISPATCHER.get(env.DISPATCHER.idFromName(name));
}

export const task = (task_id: string, owner: string, lane: DispatchTask["lane"] = "batch"): DispatchTask => ({
  task_id,
  owner,
  lane,
  kind: "transcribe",
});

/** One grant to a node asking for one task; the lease id and the task it got. */
export async function grantOne(stub: Scheduler): Promise<{ leaseId: string; taskId: string }> {
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
export async function restart(name: string): Promise<Scheduler> {
  await runInDurableObject(scheduler(name), (_instance, state) => state.abort("restart")).catch(
    () => undefined,
  );
  return scheduler(name);
}

/** B's oldest task, then A's two, then B's second: B is served first, then A. Their two lease ids. */
export async function lineUpTwoKeys(stub: Scheduler): Promise<[string, string]> {
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
