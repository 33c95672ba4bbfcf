/**
 * The inference node: loads the default model once, pulls transcription leases from the Worker and
 * runs them. Needs only outbound HTTP(S) to the Worker.
 *
 *   npm run node -- --worker-url http://127.0.0.1:8787 --token $NODE_TOKEN [--model models/ggml-base.bin]
 *
 * SIGTERM/SIGINT drain: no new work, running tasks get VOXEDGE_DRAIN_MS (default 30 s) to finish,
 * the rest are handed back to the queue.
 *
 * Beside the lease loop runs the live engine (inference-node/live/): it dials the LiveHub and serves
 * live-microphone sessions, also outbound only. VOXEDGE_LIVE_CAPACITY=0 turns it off.
 */

import { WhisperError } from "../native/index.ts";
import type { NodeHealth } from "../protocol/node.ts";
import { parseAllowlist } from "../protocol/url-policy.ts";
import { loadConfig } from "./config.ts";
import { LeaseLoop } from "./lease-loop.ts";
import { liveOptionsFromEnv } from "./live/options.ts";
import { startLiveService } from "./live/service.ts";
import { logger } from "./logger.ts";
import { MediaError } from "./media/media-error.ts";
import { loadResidentModel } from "./model.ts";
import { TaskInputError, transcribe } from "./pipeline/transcribe-task.ts";
import { createTranslator, translatorConfigFromEnv } from "./translate/config.ts";
import { MtStatus } from "./translate/mt-status.ts";
import { WorkerClient } from "./worker-client.ts";

/** Failures that another attempt cannot fix. */
function isPermanent(error: unknown): boolean {
  if (error instanceof MediaError || error instanceof TaskInputError) return true;
  return (
    error instanceof WhisperError &&
    ["ERR_INVALID_AUDIO", "ERR_EMPTY_AUDIO", "ERR_UNKNOWN_LANGUAGE", "ERR_INVALID_OPTION"].includes(
      error.code,
    )
  );
}

async function main(): Promise<void> {
  const config = loadConfig(process.argv.slice(2));
  const translator = createTranslator(
    translatorConfigFromEnv(process.env, { workerUrl: config.workerUrl, token: config.token }),
  );
  const mt = new MtStatus(translator, logger);
  const mtReady = mt.start();
  const model = await loadResidentModel(config);
  await mtReady;
  logger.info(
    { model: model.id, path: model.path, info: model.whisper.info, threads: config.threads },
    "model loaded",
  );

  const client = new WorkerClient(config.workerUrl, config.token);
  const health = (): NodeHealth => ({
    node_id: config.nodeId,
    asr_loaded: true,
    asr_model: model.id,
    models_ready: [model.id],
    gpu_free_gb: 0,
    ...mt.health,
  });
  const deps = {
    model,
    translator,
    diarize: config.diarize,
    maxTokens: config.maxTokens,
    temperatureInc: config.temperatureInc,
    media: {
      client,
      maxBytes: config.maxMediaBytes,
      allowlist: parseAllowlist(process.env.URL_ALLOWLIST),
      tempDir: config.tempDir,
    },
    logger,
  };
  const loop = new LeaseLoop({
    client,
    health,
    concurrency: config.concurrency,
    heartbeatMs: config.heartbeatMs,
    permanent: isPermanent,
    logger,
    run: async (lease, context) => {
      if (lease.kind !== "transcribe") throw new TaskInputError(`this node does not run ${lease.kind} tasks`);
      return transcribe(lease, deps, context);
    },
  });
  loop.start();
  logger.info(
    { worker: config.workerUrl, node_id: config.nodeId, concurrency: config.concurrency },
    "pulling work",
  );
  const liveOptions = liveOptionsFromEnv(process.env, config.maxTokens);
  const live =
    liveOptions.capacity > 0
      ? startLiveService({
          workerUrl: config.workerUrl,
          token: config.token,
          nodeId: config.nodeId,
          modelId: model.id,
          model: model.whisper,
          options: liveOptions,
          translator,
          logger,
        })
      : null;

  const drainMs = Number(process.env.VOXEDGE_DRAIN_MS ?? 30_000);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, active: loop.activeTasks }, "draining");
    mt.stop();
    await Promise.all([loop.drain(drainMs), live?.stop()]);
    await model.whisper.dispose();
    logger.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((error: unknown) => {
  logger.fatal(
    { err: error instanceof Error ? error.message : String(error) },
    "inference node failed to start",
  );
  process.exit(1);
});
