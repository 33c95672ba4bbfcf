import { describe, expect, it } from "vitest";
import { defaultRegistry, ModelRegistry } from "../../protocol/model-registry.ts";
import { servedAsrModel } from "../../worker/tasks/served-model.ts";

const registry = ModelRegistry.parse({
  default_model: "whisper-base",
  models: [
    { id: "whisper-base", label: "Base", kind: "local_base", file: "ggml-base.bin" },
    { id: "whisper-small", label: "Small", kind: "local_base", file: "ggml-small.bin" },
    { id: "vi-ft", label: "Vietnamese", kind: "local", file: "ggml-vi.bin" },
  ],
});

describe("servedAsrModel", () => {
  it("nothing served: the registry default (what would be loaded)", () => {
    expect(servedAsrModel(registry, [], null)).toBe("whisper-base");
    expect(servedAsrModel(registry, [""], null)).toBe("whisper-base");
  });

  it("the default when any node serves it", () => {
    expect(servedAsrModel(registry, ["vi-ft", "whisper-small", "whisper-base"], null)).toBe("whisper-base");
  });

  it("else the first served entry in registry order, whatever order the nodes report in", () => {
    expect(servedAsrModel(registry, ["vi-ft", "whisper-small"], null)).toBe("whisper-small");
    expect(servedAsrModel(registry, ["whisper-small", "vi-ft"], null)).toBe("whisper-small");
  });

  it("else a served model the registry does not list, the alphabetically first", () => {
    expect(servedAsrModel(defaultRegistry, ["whisper-tiny", "ggml-medium"], null)).toBe("ggml-medium");
  });

  it("a default http entry that can be called is served by the remote tier, nodes or not", () => {
    const remote = ModelRegistry.parse({
      default_model: "remote",
      models: [
        { id: "remote", label: "Remote", kind: "http", endpoint: "https://asr.example/v1" },
        ...registry.models,
      ],
    });
    expect(servedAsrModel(remote, [], "remote")).toBe("remote");
    expect(servedAsrModel(remote, ["whisper-base"], "remote")).toBe("remote");
  });

  it("a default http entry that cannot be called serves nothing: what the nodes serve", () => {
    const unset = ModelRegistry.parse({
      default_model: "remote",
      models: [{ id: "remote", label: "Remote", kind: "http" }, ...registry.models],
    });
    expect(servedAsrModel(unset, ["vi-ft"], null)).toBe("vi-ft");
    expect(servedAsrModel(unset, [], null)).toBe("remote");
  });
});
