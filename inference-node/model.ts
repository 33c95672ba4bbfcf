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
  /**
   * Whether this node takes file jobs: not when the registry default is an `http` entry, whose jobs the
   * Worker's remote tier runs; the node then serves what only nodes give (live engines, content renders).
   */
  takesFileJobs: boolean;
  whisper: WhisperModel;
}

/**
 * Loads the registry's default model once (or, when the default is an `http` entry, the registry's
 * first local model, for the live engine: file jobs then go to the Worker's remote tier); every task shares it. The model keeps one whisper state
 * per concurrent task (`--concurrency`), made on first use and reused by later tasks, so memory does
 * not grow with the number of tasks run. MODEL_REGISTRY is the same JSON the Worker reads, so both
 * sides agree on the default.
 */
export async function loadResidentModel(config: NodeConfig): Promise<ResidentModel> {
  const registry = parseRegistry(process.env.MODEL_REGISTRY || undefined);
  const defaultEntry = registry.models.find((m) => m.id === registry.default_model);
  const takesFileJobs = defaultEntry?.kind !== "http";
  const entry = takesFileJobs ? defaultEntry : registry.models.find((m) => m.kind !== "http");
  if (!entry) {
    throw new Error(
      takesFileJobs
        ? `the default model ${registry.default_model} is not in the registry`
        : `the default model ${registry.default_model} is served by the Worker's remote tier, and the registry lists no local model for this node's live engine`,
    );
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
    platformPid: config.platformPid,
  });
  return { id: entry.id, entry, path, synthetic: await isSyntheticModelFile(path), takesFileJobs, whisper };
}
