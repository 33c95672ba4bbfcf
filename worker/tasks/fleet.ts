import { workerConfig } from "../../platform/config.ts";
import { knownSchedulers } from "../../platform/dispatch-routing.ts";
import { dispatcher } from "../../platform/stubs.ts";

/**
 * The nodes heard from recently, as the schedulers they poll recorded them (each registry model's
 * speech pool and its partitions, the render pool), one report per node: the first scheduler's that knows it.
 */
export async function liveNodesOfFleet(env: Env) {
  const { modelRegistry, dispatcherPartitions } = workerConfig(env);
  const models = modelRegistry.models.map((entry) => entry.id);
  const reports = await Promise.all(
    knownSchedulers(models, dispatcherPartitions).map((key) => dispatcher(env, key).liveNodes()),
  );
  const nodes = new Map<string, (typeof reports)[number][number]>();
  for (const node of reports.flat()) if (!nodes.has(node.node_id)) nodes.set(node.node_id, node);
  return [...nodes.values()];
}
