import { existsSync } from "node:fs";
import { join } from "node:path";
import { loadModel, type WhisperModel } from "../native/index.ts";
import { isSyntheticModelFile } from "../native/model/synthetic.ts";
import { parseRegistry, type RegistryEntry } from "../protocol/model-registry.ts";
import type { NodeConfig } from "./config.ts";

export interface ResidentModel {
  /** Registry id of the model this node serves (the registry default). */
  id: string;
  entry: RegistryEntry;
  path: string;
  /** The file is a synthetic stand-in (random weights): the node reports it in its health. */
  synthetic: boolean;
  whisper: WhisperModel;
}

/**
 * Loads the registry's default model once; every task shares it. The model keeps one whisper state
 * per concurrent task (`--concurrency`), made on first use and reused by later tasks, so memory does
 * not grow with the number of tasks run. MODEL_REGISTRY is the same JSON the Worker reads, so both
 * sides agree on the default.
 */
export async function loadResidentModel(config: NodeConfig): Promise<ResidentModel> {
  const registry = parseRegistry(process.env.MODEL_REGISTRY || undefined);
  const entry = registry.models.find((m) => m.id === registry.default_model);
  if (!entry || entry.kind === "http") {
    throw new Error(`the default model ${registry.default_model} is not a local model this node can load`);
  }
  const path = config.modelPath ?? join(config.modelsDir, entry.file ?? `${entry.id}.bin`);
  if (!existsSync(path)) {
    throw new Error(
      `model file ${path} not found: run \`npm run model:download -- base\` or pass --model PATH`,
    );
  }
  const whisper = await loadModel(path, {
    threads: config.threads,
    concurrency: config.concurrency,
    threadPolicy: config.threadPolicy,
  });
  return { id: entry.id, entry, path, synthetic: await isSyntheticModelFile(path), whisper };
}
