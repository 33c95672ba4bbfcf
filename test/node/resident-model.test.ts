import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../inference-node/config.ts";
import { loadResidentModel, type ResidentModel } from "../../inference-node/model.ts";
import { ensureSyntheticModel } from "../../native/model/synthetic.ts";

/** A registry whose default is the Worker's remote tier, with or without a local model beside it. */
function registry(withLocal: boolean): string {
  const remote = {
    id: "remote",
    label: "Remote",
    kind: "http",
    endpoint: "https://asr.example/v1/audio/transcriptions",
  };
  const local = { id: "whisper-micro", label: "Micro", kind: "local_base", file: "synthetic-micro.bin" };
  return JSON.stringify({ default_model: "remote", models: withLocal ? [remote, local] : [remote] });
}

/** The node's configuration with an explicit model file (no Worker is asked anything here). */
const nodeConfig = (file: string) =>
  loadConfig(["--model", file, "--worker-url", "http://127.0.0.1:1", "--token", "vxn_test"]);

let loaded: ResidentModel | null = null;
const saved = process.env.MODEL_REGISTRY;

afterEach(async () => {
  await loaded?.whisper.dispose();
  loaded = null;
  process.env.MODEL_REGISTRY = saved;
});

describe("the node's resident model", () => {
  it("takes file jobs with a local default", async () => {
    const file = await ensureSyntheticModel("micro");
    process.env.MODEL_REGISTRY = JSON.stringify({
      default_model: "whisper-micro",
      models: [{ id: "whisper-micro", label: "Micro", kind: "local_base", file: "synthetic-micro.bin" }],
    });
    loaded = await loadResidentModel(nodeConfig(file));
    expect([loaded.id, loaded.takesFileJobs]).toEqual(["whisper-micro", true]);
  });

  it("with an http default, loads the registry's first local model for the live engine and takes no file jobs", async () => {
    const file = await ensureSyntheticModel("micro");
    process.env.MODEL_REGISTRY = registry(true);
    loaded = await loadResidentModel(nodeConfig(file));
    expect([loaded.id, loaded.takesFileJobs]).toEqual(["whisper-micro", false]);
  });

  it("with an http default and no local model, refuses to start saying why", async () => {
    const file = await ensureSyntheticModel("micro");
    process.env.MODEL_REGISTRY = registry(false);
    await expect(loadResidentModel(nodeConfig(file))).rejects.toThrow(
      /served by the Worker's remote tier, and the registry lists no local model/,
    );
  });
});
