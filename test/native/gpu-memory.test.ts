import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { freeGpuGb, gpuDevices } from "../../native/index.ts";

/** The flags this addon was built with, as scripts/build-native.mjs recorded them beside it. */
const built = JSON.parse(
  readFileSync(new URL("../../native/build/Release/voxedge_whisper.key.json", import.meta.url), "utf8"),
) as { config: { cuda: boolean } };

const GIB = 1024 ** 3;

describe("gpuDevices (ggml's backend device registry)", () => {
  it("lists what the build drives: [] and 0 GiB on a CPU build, each card with its bytes on CUDA", () => {
    const devices = gpuDevices();
    if (!built.config.cuda) {
      expect(devices).toEqual([]);
      expect(freeGpuGb(devices)).toBe(0);
      return;
    }
    // CUDA builds are documented, not tested here: no GPU machine builds this project's CI
    // (docs/native.md "GPU memory"). On one, this branch checks the shape.
    expect(devices.length).toBeGreaterThan(0);
    for (const device of devices) {
      expect(device).toEqual({
        name: expect.stringMatching(/^CUDA\d+$/),
        description: expect.any(String),
        freeBytes: expect.any(Number),
        totalBytes: expect.any(Number),
      });
      expect(device.totalBytes).toBeGreaterThan(0);
      expect(device.freeBytes).toBeLessThanOrEqual(device.totalBytes);
    }
    expect(freeGpuGb(devices)).toBeGreaterThan(0);
  });

  it("answers the same on every call (a heartbeat asks each time)", () => {
    const first = gpuDevices();
    expect(gpuDevices().map((device) => device.name)).toEqual(first.map((device) => device.name));
  });
});

describe("freeGpuGb", () => {
  it("sums free memory over the cards, in GiB rounded down to 0.01", () => {
    const card = (freeBytes: number) => ({
      name: "CUDA0",
      description: "card",
      freeBytes,
      totalBytes: 80 * GIB,
    });
    expect(freeGpuGb([card(1.5 * GIB), card(2 * GIB + 10 * 1024 ** 2)])).toBe(3.5);
    expect(freeGpuGb([card(79.999 * GIB)])).toBe(79.99);
    expect(freeGpuGb([])).toBe(0);
  });
});
