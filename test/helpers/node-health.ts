import type { NodeHealth } from "../../protocol/node.ts";

/** A CPU node's health report: the base model loaded, no translation engine. */
export const NODE_HEALTH: NodeHealth = {
  node_id: "n1",
  asr_loaded: true,
  asr_model: "whisper-base",
  asr_synthetic: false,
  models_ready: ["whisper-base"],
  gpu_free_gb: 0,
  mt_loaded: false,
  mt_model: "",
  mt_pairs: [],
};
