import type { LeaseRow } from "../../durable-objects/dispatcher/lease-table.ts";
import { workerConfig } from "../../platform/config.ts";
import { type AskedScheduler, homeOfNode, schedulersOfAsk } from "../../platform/dispatch-routing.ts";
import type { NodeIdentity } from "../../platform/node-identity.ts";
import { dispatcher, dispatcherOfLease } from "../../platform/stubs.ts";
import type { ModelRegistry } from "../../protocol/model-registry.ts";
import type { LeaseAsk } from "../../protocol/node.ts";

/** A scheduler's stub, and whether it is the node's home (where its slots count under `auto`). */
interface Scheduler {
  stub: ReturnType<typeof dispatcher>;
  home: boolean;
}

/**
 * Asks the schedulers a node serves (its classes and models, `schedulersOfAsk`) for up to
 * `ask.capacity` leases. Most nodes serve one: a plain long poll there. A node serving several first
 * takes what is ready from each in turn; with nothing ready it waits on all of them, and the first to
 * grant ends the others' waits. A grant that raced that end and would overfill the node goes back in line
 * unused (its attempt not counted).
 *
 * With DISPATCHER_PARTITIONS > 1 a speech pool is two of those schedulers, the node's home partition and
 * one drawn at random (schedulersOfAsk), so one ask still gets at most one grant and its slots count only
 * at home.
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
  const schedulers = keys.map((key: AskedScheduler) => ({ stub: dispatcher(env, key), home: key.home }));
  const [only] = schedulers;
  if (!only) return [];
  if (schedulers.length === 1) return only.stub.lease(ask, node, undefined, only.home);
  const ready = await takeReady(schedulers, ask, node);
  if (ready.length > 0 || ask.wait_ms <= 0) return ready;
  return waitOnAll(env, schedulers, ask, node);
}

async function takeReady(schedulers: Scheduler[], ask: LeaseAsk, node: NodeIdentity): Promise<LeaseRow[]> {
  const rows: LeaseRow[] = [];
  for (const scheduler of schedulers) {
    const room = ask.capacity - rows.length;
    if (room <= 0) break;
    rows.push(
      ...(await scheduler.stub.lease(
        { ...ask, capacity: room, wait_ms: 0 },
        node,
        undefined,
        scheduler.home,
      )),
    );
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
  const polls = schedulers.map((scheduler) => scheduler.stub.lease(ask, node, waitId, scheduler.home));
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
