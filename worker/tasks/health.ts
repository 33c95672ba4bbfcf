import { modelRegistry } from "../config.ts";
import type { HealthResponse } from "../schemas/discovery.ts";
import { dispatcher } from "./dispatcher.ts";

/** Health as the nodes last reported it, plus whether the scheduling path answers. */
export async function readHealth(env: Env): Promise<{ health: HealthResponse; modelsReady: string[] }> {
  const registry = modelRegistry(env);
  let jobQueue: HealthResponse["job_queue"] = "ready";
  let jobQueueError = "";
  let nodes: Awaited<ReturnType<ReturnType<typeof dispatcher>["liveNodes"]>> = [];
  try {
    nodes = await dispatcher(env).liveNodes();
  } catch (cause) {
    jobQueue = "reconnecting";
    jobQueueError = cause instanceof Error ? cause.message : String(cause);
  }
  const asrNode = nodes.find((node) => node.asr_loaded);
  const mtNode = nodes.find((node) => node.mt_loaded);
  const health: HealthResponse = {
    status: "ok",
    asr_model: registry.default_model,
    asr_loaded: Boolean(asrNode),
    gpu_free_gb: Math.max(0, ...nodes.map((node) => node.gpu_free_gb)),
    busy: false,
    mt_loaded: Boolean(mtNode),
    mt_model: mtNode?.mt_model ?? "",
    job_queue: jobQueue,
    job_queue_error: jobQueueError,
  };
  return { health, modelsReady: [...new Set(nodes.flatMap((node) => node.models_ready))] };
}
