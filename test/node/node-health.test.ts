import { describe, expect, it } from "vitest";
import { logger } from "../../inference-node/logger.ts";
import { nodeHealth } from "../../inference-node/node-health.ts";
import { MtStatus } from "../../inference-node/translate/mt-status.ts";
import { NodeHealth } from "../../protocol/node.ts";

describe("the node's health report", () => {
  it("on this CPU build: gpu_free_gb 0, the loaded model, and a report the Worker accepts", () => {
    const report = nodeHealth(
      "cpu-node",
      { id: "whisper-base", synthetic: false },
      new MtStatus(null, logger),
    );
    expect(report).toEqual({
      node_id: "cpu-node",
      asr_loaded: true,
      asr_model: "whisper-base",
      asr_synthetic: false,
      models_ready: ["whisper-base"],
      gpu_free_gb: 0,
      mt_loaded: false,
      mt_model: "",
      mt_pairs: [],
    });
    expect(NodeHealth.parse(report)).toEqual(report);
  });
});
