import { describe, expect, it } from "vitest";
import { logger } from "../../inference-node/logger.ts";
import { nodeHealth } from "../../inference-node/node-health.ts";
import { MtStatus } from "../../inference-node/translate/mt-status.ts";
import { NodeHealth } from "../../protocol/node.ts";
import { NODE_HEALTH } from "../helpers/node-health.ts";

describe("the node's health report", () => {
  it("on this CPU build: gpu_free_gb 0, the loaded model, and a report the Worker accepts", () => {
    const report = nodeHealth(
      "cpu-node",
      { id: "whisper-base", synthetic: false },
      new MtStatus(null, logger),
    );
    // the fixture is a CPU node with the base model and no translation engine, gpu_free_gb 0
    expect(report).toEqual({ ...NODE_HEALTH, node_id: "cpu-node" });
    expect(NodeHealth.parse(report)).toEqual(report);
  });
});
