import { freeGpuGb, gpuDevices } from "../native/index.ts";
import type { NodeHealth } from "../protocol/node.ts";
import type { ResidentModel } from "./model.ts";
import type { MtStatus } from "./translate/mt-status.ts";

/**
 * What the node says about itself on every lease poll and heartbeat (/health and /models read it).
 * Free GPU memory is read from the addon on each call, so `gpu_free_gb` follows the cards from one
 * heartbeat to the next; a CPU build has no GPU device and reports 0.
 *
 * @example
 * const health = () => nodeHealth(config.nodeId, model, mt);
 */
export function nodeHealth(
  nodeId: string,
  model: Pick<ResidentModel, "id" | "synthetic">,
  mt: Pick<MtStatus, "health">,
): NodeHealth {
  return {
    node_id: nodeId,
    asr_loaded: true,
    asr_model: model.id,
    asr_synthetic: model.synthetic,
    models_ready: [model.id],
    gpu_free_gb: freeGpuGb(gpuDevices()),
    ...mt.health,
  };
}
