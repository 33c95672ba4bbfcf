import type { LeaseRow } from "../../durable-objects/dispatcher/lease-table.ts";
import { workerConfig } from "../../platform/config.ts";
import { type AskedScheduler, homeOfNode, schedulersOfAsk } from "../../platform/dispatch-routing.ts";
import type { NodeIdentity } from "../../platform/node-identity.ts";
import { dispatcher, dispatcherOfLease } from "../../platform/stubs.ts";
import type { ModelRegistry } from "../../protocol/model-registry.ts";
import type { LeaseAsk } from "../../protocol/node.ts";

/** A scheduler's stub, and the partitions its ask may steal from (none: an unpartitioned scheduler). */
interface Scheduler {
  key: AskedScheduler;
  stub: ReturnType<typeof dispatcher>;
}

/**
 * Asks the schedulers a node serves (its classes and models, `schedulersOfAsk`) for up to
 * `ask.capacity` leases. Most nodes serve one: a plain long poll there. A node serving several first
 * takes what is ready from each in turn; with nothing ready it waits on all of them, and the first to
 * grant ends the others' waits. A grant that raced that end and would overfill the node goes back in line
 * unused (its attempt not counted).
 *
 * With DISPATCHER_PARTITIONS > 1 a speech pool's scheduler is the node's home partition, the only one
 * it parks in and where its slots count; it steals from another partition by a poll that does not park
 * (`askScheduler`), so no partition but its home pays for an ask that finds nothing.
 *
 * A speech node serving models the registry does not list gets no task for them (none is enqueued for
 * a model outside the registry), yet /health names what it serves: its report is kept by the default
 * model's scheduler too (its home partition), which /health asks (liveNodesOfFleet).
 */
export async function askSchedulers(
  env: Env,
  ask: LeaseAsk,
  node: NodeIdentity,
  registry: ModelRegistry,
): Promise<LeaseRow[]> {
  const defaultModel = registry.default_model;
  const partitions = workerConfig(env).dispatcherPartitions;
  const keys = schedulersOfAsk(ask, defaultModel, partitions);
  const listed = new Set(registry.models.map((entry) => entry.id));
  if (keys.some((key) => key.workClass === "speech" && !listed.has(key.pool))) {
    await dispatcher(env, homeOfNode(ask.node.node_id, defaultModel, partitions)).noteNode(ask.node);
  }
  const schedulers = keys.map((key) => ({ key, stub: dispatcher(env, key) }));
  const [only] = schedulers;
  if (!only) return [];
  if (schedulers.length === 1) return askScheduler(env, only, ask, node);
  const ready = await takeReady(env, schedulers, ask, node);
  if (ready.length > 0 || ask.wait_ms <= 0) return ready;
  return waitOnAll(env, schedulers, ask, node);
}

/**
 * One scheduler's answer to the ask. At a home partition: its grant, or where it sends the node to
 * steal (the busier of the sampled partitions with work waiting, or one that forwarded its work to a
 * poll parked here), asked without parking. A steal that finds the work gone (the figures are up to 2 s
 * old) parks at home once more, when no other wait could be withdrawn (`waitId` absent).
 */
async function askScheduler(
  env: Env,
  scheduler: Scheduler,
  ask: LeaseAsk,
  node: NodeIdentity,
  waitId?: string,
): Promise<LeaseRow[]> {
  const { key, stub } = scheduler;
  if (key.partition === undefined) return stub.lease(ask, node, waitId);
  let sampled = key.sampled;
  for (let round = 0; ; round++) {
    const answer = await stub.leaseOrSteal(ask, node, sampled, waitId);
    if (answer.steal === null) return answer.leases;
    const victim = dispatcher(env, { ...key, partition: answer.steal });
    const stolen = await victim.lease({ ...ask, wait_ms: 0 }, node, undefined, false);
    if (stolen.length > 0 || ask.wait_ms <= 0 || waitId !== undefined || round > 0) return stolen;
    sampled = [];
  }
}

async function takeReady(
  env: Env,
  schedulers: Scheduler[],
  ask: LeaseAsk,
  node: NodeIdentity,
): Promise<LeaseRow[]> {
  const rows: LeaseRow[] = [];
  for (const scheduler of schedulers) {
    const room = ask.capacity - rows.length;
    if (room <= 0) break;
    rows.push(...(await askScheduler(env, scheduler, { ...ask, capacity: room, wait_ms: 0 }, node)));
  }
  return rows;
}

async function waitOnAll(
  env: Env,
  schedulers: Scheduler[],
  ask: LeaseAsk,
  node: NodeIdentity,
): Promise<LeaseRow[]> {
  const waitId = crypto.randomUUID();
  const polls = schedulers.map((scheduler) => askScheduler(env, scheduler, ask, node, waitId));
  const granted = polls.map((poll) =>
    poll.then((rows) => (rows.length > 0 ? rows : Promise.reject(new Error("no lease")))),
  );
  // Every wait ended empty (or failed): allSettled below rethrows a failure, else there is no work.
  await Promise.any(granted).catch(() => undefined);
  await Promise.all(schedulers.map((scheduler) => scheduler.stub.withdraw(waitId)));
  const settled = await Promise.allSettled(polls);
  const rows = settled.flatMap((outcome) => (outcome.status === "fulfilled" ? outcome.value : []));
  const failure = settled.find((outcome) => outcome.status === "rejected");
  if (rows.length === 0 && failure) throw failure.reason;
  const kept = rows.slice(0, ask.capacity);
  await Promise.all(
    rows
      .slice(ask.capacity)
      .map((row) => dispatcherOfLease(env, row.lease_id)?.release(row.lease_id, "unused")),
  );
  return kept;
}
