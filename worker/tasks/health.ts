import { type LiveStatus, liveStatus as readLiveStatus } from "../../durable-objects/live/live-streams.ts";
import { workerConfig } from "../../platform/config.ts";
import { modelFixCommand, syntheticModelNotice } from "../../protocol/model-registry.ts";
import { remoteDefaultEntry, remoteEntryReady } from "../remote/remote-tier.ts";
import type { HealthResponse, ModelsResponse } from "../schemas/discovery.ts";
import { liveNodesOfFleet } from "./fleet.ts";
import { readJobQueue } from "./job-broker.ts";
import { servedAsrModel } from "./served-model.ts";

/**
 * Health as the nodes last reported it, plus whether a publish would reach the job broker
 * (`readJobQueue`). `asr_loaded` is
 * true exactly when a streaming engine is connected to the LiveHub, the engine /ws claims, so false
 * always means /ws is refused (batch-only nodes show on /models `ready` instead); `asr_model` is a
 * model that is served (`servedAsrModel`); `gpu_free_gb` the most free VRAM one node reports; `busy`
 * the live-mic gate. A model any node serves from a synthetic file is named as such (`asr_synthetic`,
 * `asr_fix_command`; `syntheticModels` for /models), so nobody mistakes noise for a transcript.
 */
export async function readHealth(
  env: Env,
): Promise<{ health: HealthResponse; modelsReady: string[]; syntheticModels: string[] }> {
  const registry = workerConfig(env).modelRegistry;
  let nodes: Awaited<ReturnType<typeof liveNodesOfFleet>> = [];
  const liveAsked = liveStatus(env);
  const jobQueueAsked = readJobQueue(env);
  try {
    nodes = await liveNodesOfFleet(env);
  } catch (cause) {
    // no node can be heard of; the job broker (the Queue) is another matter, in `job_queue`
    console.error(JSON.stringify({ dispatcher: "liveNodes failed", error: String(cause) }));
  }
  const live = await liveAsked;
  const asrNodes = nodes.filter((node) => node.asr_loaded);
  const mtNode = nodes.find((node) => node.mt_loaded);
  const syntheticModels = [
    ...new Set(asrNodes.filter((node) => node.asr_synthetic).map((node) => node.asr_model)),
  ];
  const remote = remoteDefaultEntry(env);
  const asrModel = servedAsrModel(
    registry,
    [...asrNodes.map((node) => node.asr_model), ...live.models],
    remote && remoteEntryReady(env, remote) ? remote.id : null,
  );
  const asrEntry = registry.models.find((entry) => entry.id === asrModel);
  const synthetic = syntheticModels.includes(asrModel);
  const health: HealthResponse = {
    status: "ok",
    asr_model: asrModel,
    asr_synthetic: synthetic,
    asr_fix_command: synthetic && asrEntry ? modelFixCommand(asrEntry) : "",
    asr_loaded: live.engines > 0,
    gpu_free_gb: Math.max(0, ...nodes.map((node) => node.gpu_free_gb)),
    busy: live.busy,
    mt_loaded: Boolean(mtNode),
    mt_model: mtNode?.mt_model ?? "",
    ...(await jobQueueAsked),
  };
  return { health, modelsReady: [...new Set(nodes.flatMap((node) => node.models_ready))], syntheticModels };
}

/**
 * The registry as /models shows it: each entry, whether it can serve now (a node serves it; an http
 * entry has its endpoint, or for Workers AI the binding), and for one a node
 * serves from a synthetic file, a label that says so and how to fix it.
 */
export async function readModels(env: Env): Promise<ModelsResponse> {
  const registry = workerConfig(env).modelRegistry;
  const { modelsReady, syntheticModels } = await readHealth(env);
  const models = registry.models.map((model) => {
    const synthetic = syntheticModels.includes(model.id);
    return {
      id: model.id,
      label: synthetic ? syntheticModelNotice(model) : model.label,
      kind: model.kind,
      ready: model.kind === "http" ? remoteEntryReady(env, model) : modelsReady.includes(model.id),
      synthetic,
      supports_streaming: model.supports_streaming,
      supports_timestamps: model.supports_timestamps,
      supports_context: model.supports_context,
    };
  });
  return { models, default_model: registry.default_model };
}

/** The hub's view; an unreachable hub reads as no session and no engine, so /health still answers. */
async function liveStatus(env: Env): Promise<LiveStatus> {
  try {
    return await readLiveStatus(env);
  } catch (cause) {
    console.error(JSON.stringify({ live_hub: "status failed", error: String(cause) }));
    return { busy: false, engines: 0, models: [] };
  }
}
