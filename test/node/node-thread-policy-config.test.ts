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

  it("names the local platform's process from VOXEDGE_PLATFORM_PID (npm start sets it), none otherwise", () => {
    expect(loadConfig([], base).platformPid).toBeUndefined();
    expect(loadConfig([], { ...base, VOXEDGE_PLATFORM_PID: "" }).platformPid).toBeUndefined();
    expect(loadConfig([], { ...base, VOXEDGE_PLATFORM_PID: "4242" }).platformPid).toBe(4242);
    expect(() => loadConfig([], { ...base, VOXEDGE_PLATFORM_PID: "wrangler" })).toThrow(
      /inference node configuration: platformPid:/,
    );
    expect(() => loadConfig([], { ...base, VOXEDGE_PLATFORM_PID: "0" })).toThrow(/platformPid/);
  });
});
