import { describe, expect, it } from "vitest";
import { loadConfig } from "../../inference-node/config.ts";

const base = { NODE_TOKEN: "node-token-1234" };

describe("decode thread policy setting", () => {
  it("defaults to adaptive; --thread-policy wins over VOXEDGE_THREAD_POLICY", () => {
    expect(loadConfig([], base).threadPolicy).toBe("adaptive");
    expect(loadConfig([], { ...base, VOXEDGE_THREAD_POLICY: "fixed" }).threadPolicy).toBe("fixed");
    expect(
      loadConfig(["--thread-policy", "adaptive"], { ...base, VOXEDGE_THREAD_POLICY: "fixed" }).threadPolicy,
    ).toBe("adaptive");
  });

  it("refuses an unknown policy with a readable message", () => {
    expect(() => loadConfig([], { ...base, VOXEDGE_THREAD_POLICY: "spin" })).toThrow(
      /inference node configuration: threadPolicy:/,
    );
  });
});
