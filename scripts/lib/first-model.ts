/**
 * The model `npm start` gives its node: the registry default's file when it is in the models folder;
 * otherwise it is downloaded first (SHA-1 checked against whisper.cpp's table, resumed from its
 * `.part` after a cut, with progress); when that cannot happen (offline, 404, hash mismatch, no
 * network) a synthetic stand-in with the reason, which start.ts prints as a banner.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { DownloadError, downloadModel } from "../../native/model/download.ts";
import { progressReporter } from "../../native/model/progress.ts";
import { ensureSyntheticModel, type SyntheticSize } from "../../native/model/synthetic.ts";
import { downloadNameOf, modelFixCommand, type RegistryEntry } from "../../protocol/model-registry.ts";

/** The environment npm start reads for the first fetch. */
const FirstModelEnv = z.object({
  /** "1": never download (no network on this machine, or CI); the synthetic model is used. */
  VOXEDGE_OFFLINE: z.enum(["", "0", "1"]).default(""),
  /** A mirror (or a test server) instead of whisper.cpp's Hugging Face repository. */
  VOXEDGE_MODEL_BASE_URL: z.url().optional(),
});

export interface FirstModelSettings {
  offline: boolean;
  baseUrl: string | undefined;
}

/** Reads VOXEDGE_OFFLINE and VOXEDGE_MODEL_BASE_URL; a bad value throws naming the variable. */
export function firstModelSettings(env: NodeJS.ProcessEnv): FirstModelSettings {
  const parsed = FirstModelEnv.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${issue?.path.join(".")}: ${issue?.message}`);
  }
  return { offline: parsed.data.VOXEDGE_OFFLINE === "1", baseUrl: parsed.data.VOXEDGE_MODEL_BASE_URL };
}

export interface FirstModelOptions extends FirstModelSettings {
  /** The registry default: the model the node will serve. */
  entry: RegistryEntry;
  modelsDir: string;
  /** Progress redrawn on one line (a terminal) or plain lines every 10 %. */
  tty: boolean;
  write: (text: string) => void;
  /** Expected SHA-1 instead of the published one (mirrors, tests). */
  sha1?: string;
  /** The stand-in's dimensions (default base, the built-in default's size). */
  syntheticSize?: SyntheticSize;
}

export interface FirstModel {
  path: string;
  synthetic: boolean;
  /** Why the synthetic model is used; null for the real one. */
  reason: string | null;
}

/**
 * The real model, downloaded if need be, or the synthetic stand-in and why.
 *
 * @example
 * const model = await ensureFirstModel({ entry, modelsDir: "models", offline: false, baseUrl: undefined,
 *   tty: process.stderr.isTTY, write: (t) => process.stderr.write(t) });
 */
export async function ensureFirstModel(options: FirstModelOptions): Promise<FirstModel> {
  const { entry, modelsDir } = options;
  const file = entry.file ?? `${entry.id}.bin`;
  const target = path.join(modelsDir, file);
  if (existsSync(target)) return { path: target, synthetic: false, reason: null };
  const reason = await download(options);
  if (reason === null) {
    options.write(
      `Model ${entry.id} is in ${target}. Another size: npm run model:download -- NAME (tiny, small, large-v3-turbo, …), served by a node started with --model PATH.\n`,
    );
    return { path: target, synthetic: false, reason: null };
  }
  const synthetic = await ensureSyntheticModel(options.syntheticSize ?? "base");
  return { path: synthetic, synthetic: true, reason };
}

/** Downloads the entry's file; null when it is in place, else why not. */
async function download(options: FirstModelOptions): Promise<string | null> {
  const name = downloadNameOf(options.entry);
  if (name === null) return `${options.entry.file ?? options.entry.id} is not a published whisper.cpp model`;
  if (options.offline) return "VOXEDGE_OFFLINE=1: no download attempted";
  options.write(`Downloading the ${options.entry.label} model (${name}) into ${options.modelsDir}/ …\n`);
  const progress = progressReporter({ label: `ggml-${name}.bin`, tty: options.tty, write: options.write });
  try {
    await downloadModel({
      name,
      dir: options.modelsDir,
      baseUrl: options.baseUrl,
      sha1: options.sha1,
      onProgress: progress.onProgress,
      onWarning: (message) => options.write(`warning: ${message}\n`),
    });
    return null;
  } catch (error) {
    if (!(error instanceof DownloadError)) throw error;
    return error.code === "ERR_CHECKSUM" ? `${error.message} (the bad file was deleted)` : error.message;
  } finally {
    progress.finish();
  }
}

/** The terminal banner for a synthetic model: what it means and the one command that fixes it. */
export function syntheticBanner(entry: RegistryEntry, model: FirstModel): string {
  const lines = [
    `SYNTHETIC MODEL: the node serves ${model.path} (random weights): TRANSCRIPTS ARE NOISE.`,
    `Why: ${model.reason ?? "unknown"}.`,
    `Fix: ${modelFixCommand(entry)}, then restart npm start.`,
    "The console, /health and /models say the same until then.",
  ];
  const width = Math.max(...lines.map((line) => line.length));
  const rule = "!".repeat(width + 4);
  return [rule, ...lines.map((line) => `! ${line.padEnd(width)} !`), rule].join("\n");
}
