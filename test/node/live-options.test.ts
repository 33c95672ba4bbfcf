import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { liveOptionsFromEnv } from "../../inference-node/live/options.ts";

describe("live engine settings", () => {
  it("defaults to four streams and encoder windows sized to the audio heard", () => {
    expect(liveOptionsFromEnv({}, 0, 2)).toMatchObject({ capacity: 4, audioCtx: "auto" });
  });

  it("reads VOXEDGE_LIVE_AUDIO_CTX=off (whisper's full 30 s window) and VOXEDGE_LIVE_CAPACITY", () => {
    expect(
      liveOptionsFromEnv({ VOXEDGE_LIVE_AUDIO_CTX: "off", VOXEDGE_LIVE_CAPACITY: "5" }, 0, 2),
    ).toMatchObject({
      audioCtx: "off",
      capacity: 5,
    });
  });

  it("shares the cores between live decodes (VOXEDGE_LIVE_CORES), a decode alone getting the node's threads", () => {
    expect(liveOptionsFromEnv({}, 0, 2)).toMatchObject({
      cores: availableParallelism(),
      threadsPerDecode: 2,
    });
    expect(liveOptionsFromEnv({ VOXEDGE_LIVE_CORES: "3" }, 0, 4)).toMatchObject({
      cores: 3,
      threadsPerDecode: 4,
    });
    expect(() => liveOptionsFromEnv({ VOXEDGE_LIVE_CORES: "0" }, 0, 2)).toThrow(/cores/);
  });

  it("refuses any other encoder window setting with a readable message", () => {
    expect(() => liveOptionsFromEnv({ VOXEDGE_LIVE_AUDIO_CTX: "256" }, 0, 2)).toThrow(
      /live engine configuration: audioCtx/,
    );
  });
});
