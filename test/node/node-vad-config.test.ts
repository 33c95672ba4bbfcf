import { describe, expect, it } from "vitest";
import { loadConfig } from "../../inference-node/config.ts";
import { liveOptionsFromEnv } from "../../inference-node/live/options.ts";

const base = { NODE_TOKEN: "node-token-1234" };

describe("VAD settings", () => {
  it("defaults to Silero, skipping non-speech over 2 s, live finals after 500 ms of VAD silence", () => {
    const config = loadConfig([], base);
    expect(config.vad).toBe("silero");
    expect(config.skipNonSpeechSec).toBe(2);
    expect(liveOptionsFromEnv({}, 0, 2)).toMatchObject({ vadSilenceMs: 500, silenceMs: 600 });
  });

  it("reads VOXEDGE_VAD, VOXEDGE_VAD_SKIP_SEC and VOXEDGE_LIVE_VAD_SILENCE_MS", () => {
    const config = loadConfig([], { ...base, VOXEDGE_VAD: "energy", VOXEDGE_VAD_SKIP_SEC: "0" });
    expect(config).toMatchObject({ vad: "energy", skipNonSpeechSec: 0 });
    expect(liveOptionsFromEnv({ VOXEDGE_LIVE_VAD_SILENCE_MS: "350" }, 0, 2).vadSilenceMs).toBe(350);
  });

  it("refuses bad values with a readable message", () => {
    expect(() => loadConfig([], { ...base, VOXEDGE_VAD: "webrtc" })).toThrow(
      /inference node configuration: vad:/,
    );
    expect(() => loadConfig([], { ...base, VOXEDGE_VAD_SKIP_SEC: "-1" })).toThrow(/skipNonSpeechSec/);
    expect(() => liveOptionsFromEnv({ VOXEDGE_LIVE_VAD_SILENCE_MS: "20" }, 0, 2)).toThrow(
      /live engine configuration: vadSilenceMs/,
    );
  });
});
