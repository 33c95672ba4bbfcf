import { describe, expect, it } from "vitest";
import { liveOptionsFromEnv } from "../../inference-node/live/options.ts";

describe("live engine settings", () => {
  it("defaults to two streams and encoder windows sized to the audio heard", () => {
    expect(liveOptionsFromEnv({}, 0)).toMatchObject({ capacity: 2, audioCtx: "auto" });
  });

  it("reads VOXEDGE_LIVE_AUDIO_CTX=off (whisper's full 30 s window) and VOXEDGE_LIVE_CAPACITY", () => {
    expect(
      liveOptionsFromEnv({ VOXEDGE_LIVE_AUDIO_CTX: "off", VOXEDGE_LIVE_CAPACITY: "5" }, 0),
    ).toMatchObject({
      audioCtx: "off",
      capacity: 5,
    });
  });

  it("refuses any other encoder window setting with a readable message", () => {
    expect(() => liveOptionsFromEnv({ VOXEDGE_LIVE_AUDIO_CTX: "256" }, 0)).toThrow(
      /live engine configuration: audioCtx/,
    );
  });
});
