import type { LiveStatus } from "../../durable-objects/live/live-hub.ts";
import { workerConfig } from "../../platform/config.ts";
import { dispatcher, liveHub } from "../../platform/stubs.ts";
import type { HealthResponse } from "../schemas/discovery.ts";

/**
 * What /health says when the scheduler cannot be asked: a fixed phrase, since the exception's own text
 * (addresses, internal names) is for the server's log, not for an unauthenticated endpoint.
 */
export const JOB_QUEUE_UNAVAILABLE = "job queue unavailable";

/**
 * Health as the nodes last reported it, plus whether the scheduling path answers. The recognition
 * engine counts as loaded when a batch node reported it (heartbeats) or a live engine is connected to
 * the LiveHub; `busy` is the live-mic gate.
 */
export async function readHealth(env: Env): Promise<{ health: HealthResponse; modelsReady: string[] }> {
  const registry = workerConfig(env).modelRegistry;
  let jobQueue: HealthResponse["job_queue"] = "ready";
  let jobQueueError = "";
  let nodes: Awaited<ReturnType<ReturnType<typeof dispatcher>["liveNodes"]>> = [];
  const liveAsked = liveStatus(env);
  try {
    nodes = await dispatcher(env).liveNodes();
  } catch (cause) {
    jobQueue = "reconnecting";
    jobQueueError = JOB_QUEUE_UNAVAILABLE;
    console.error(JSON.stringify({ dispatcher: "liveNodes failed", error: String(cause) }));
  }
  const live = await liveAsked;
  const asrNode = nodes.find((node) => node.asr_loaded);
  const mtNode = nodes.find((node) => node.mt_loaded);
  const health: HealthResponse = {
    status: "ok",
    asr_model: registry.default_model,
    asr_loaded: Boolean(asrNode) || live.engines > 0,
    gpu_free_gb: Math.max(0, ...nodes.map((node) => node.gpu_free_gb)),
    busy: live.busy,
    mt_loaded: Boolean(mtNode),
    mt_model: mtNode?.mt_model ?? "",
    job_queue: jobQueue,
    job_queue_error: jobQueueError,
  };
  return { health, modelsReady: [...new Set(nodes.flatMap((node) => node.models_ready))] };
}

/** The hub's view; an unreachable hub reads as no session and no engine, so /health still answers. */
async function liveStatus(env: Env): Promise<LiveStatus> {
  try {
    return await liveHub(env).status();
  } catch (cause) {
    console.error(JSON.stringify({ live_hub: "status failed", error: String(cause) }));
    return { busy: false, engines: 0 };
  }
}
