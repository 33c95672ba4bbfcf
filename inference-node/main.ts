/**
 * The inference node: loads the default model once, pulls transcription leases from the Worker and
 * runs them; beside them, unless VOXEDGE_CONTENT_CONCURRENCY=0, it renders content tasks (shorts, quiz
 * videos, slide decks) in a loop of their own and publishes the catalog previews once. Needs only outbound HTTP(S) to the Worker.
 *
 *   npm run node -- --worker-url http://127.0.0.1:8787 --token $NODE_TOKEN [--model models/ggml-base.bin]
 *
 * SIGTERM/SIGINT drain: no new work, running tasks get VOXEDGE_DRAIN_MS (default 30 s) to finish,
 * the rest are handed back to the queue. A lease loop whose every slot is held by work that ignored its
 * stop (stall-watch.ts) drains the node the same way and exits EXIT_SLOTS_EXHAUSTED (75), for its
 * supervisor to start it again.
 *
 * Beside the lease loop runs the live engine (inference-node/live/): it dials the LiveHub and serves
 * live-microphone sessions, also outbound only. VOXEDGE_LIVE_CAPACITY=0 turns it off.
 */

import { gpuDevices } from "../native/index.ts";
import { loadConfig } from "./config.ts";
import { publishMissingPreviews } from "./content/publish-previews.ts";
import { contentDepsFromEnv } from "./content/run-content-task.ts";
import { leaseLoopWork } from "./kinds/index.ts";
import { LeaseLoop } from "./lease-loop.ts";
import { liveSpeechFromEnv } from "./live/live-speech.ts";
import { liveOptionsFromEnv } from "./live/options.ts";
import { type LiveService, startLiveService } from "./live/service.ts";
import { logger as baseLogger } from "./logger.ts";
import { MEDIA_RATE_WINDOW_MS } from "./media/download.ts";
import { checkFfmpeg, ffmpegPath } from "./media/ffmpeg-path.ts";
import { loadResidentModel } from "./model.ts";
import { nodeHealth } from "./node-health.ts";
import { NodeHeartbeat } from "./node-heartbeat.ts";
import { identifiedLogger } from "./node-identity.ts";
import { EXIT_SLOTS_EXHAUSTED, type NodeParts, shutDownNode } from "./node-shutdown.ts";
import { createTranslator, translatorConfigFromEnv } from "./translate/config.ts";
import { MtStatus } from "./translate/mt-status.ts";
import { loadVoiceActivity } from "./vad/voice-activity.ts";
import { WorkerClient } from "./worker-client.ts";

async function main(): Promise<void> {
  const config = loadConfig(process.argv.slice(2));
  // Every task decodes or renders through it: a missing or pre-5.0 ffmpeg is refused up front, before
  // the node waits for its Worker.
  const ffmpeg = await checkFfmpeg(ffmpegPath());
  const client = new WorkerClient(config.workerUrl, config.token);
  // Every line from here on carries the node's name, as the Worker knows it from the token.
  const { logger } = await identifiedLogger(client, baseLogger);
  logger.info({ ffmpeg }, "ffmpeg found");
  const translator = createTranslator(
    translatorConfigFromEnv(process.env, { workerUrl: config.workerUrl, token: config.token }),
  );
  const mt = new MtStatus(translator, logger);
  const mtReady = mt.start();
  const model = await loadResidentModel(config);
  const vad = await loadVoiceActivity(config.vad, (message) => logger.warn(message));
  logger.info({ vad: vad.kind }, "voice activity detector loaded");
  await mtReady;
  logger.info(
    {
      model: model.id,
      path: model.path,
      info: model.whisper.info,
      threads: config.threads,
      gpus: gpuDevices().map((gpu) => gpu.description),
    },
    "model loaded",
  );
  if (model.synthetic) {
    logger.warn(
      { path: model.path },
      "synthetic model (random weights): transcripts are noise; /health and /models say so",
    );
  }

  const health = () => nodeHealth(config.nodeId, model, mt);
  const deps = {
    model,
    translator,
    translates: (from: string, to: string) => mt.translates(from, to),
    diarize: config.diarize,
    vad,
    skipNonSpeechSec: config.skipNonSpeechSec,
    maxTokens: config.maxTokens,
    temperatureInc: config.temperatureInc,
    media: {
      client,
      maxBytes: config.maxMediaBytes,
      downloadMaxMs: config.mediaDownloadMaxSec * 1000,
      minRate:
        config.mediaMinBytesPerSec > 0
          ? { bytesPerSec: config.mediaMinBytesPerSec, windowMs: MEDIA_RATE_WINDOW_MS }
          : undefined,
      allowlist: config.urlAllowlist,
      tempDir: config.tempDir,
    },
    logger,
  };
  // One loop per work class, so a long render never holds a transcription slot and the other way round;
  // each runs its class's kinds by their entries in inference-node/kinds. One heartbeat.
  const heartbeat = new NodeHeartbeat(client, health, config.heartbeatMs, logger);
  const loops: LeaseLoop[] = [];
  // The catalog previews are built in a temporary folder at start; a stop aborts them and waits for
  // that folder's removal (a node restarted mid-build left one behind each time).
  const previews: NodeParts["previews"] = { stop: new AbortController(), published: Promise.resolve() };
  let live: LiveService | null = null;
  let stopping = false;
  const stop = async (reason: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason, active: loops.reduce((n, loop) => n + loop.activeTasks, 0) }, "draining");
    await shutDownNode({ loops, live, mt, previews, model: model.whisper }, config.drainMs, logger);
    logger.info({ exit_code: exitCode }, "stopped");
    process.exit(exitCode);
  };
  // Work that ignored its stop holds every slot of a loop and may never return: only a new process
  // frees its threads, so the node drains and exits for its supervisor to start it again.
  const restartWhenExhausted = () => {
    logger.fatal("every slot of a lease loop is held by work that did not stop: restarting the node");
    void stop("slots exhausted", EXIT_SLOTS_EXHAUSTED);
  };
  if (model.takesFileJobs) {
    loops.push(
      new LeaseLoop({
        client,
        health,
        ...leaseLoopWork("speech", deps),
        concurrency: config.concurrency,
        heartbeat,
        stallMs: config.taskStallSec * 1000,
        onSlotsExhausted: restartWhenExhausted,
        logger,
      }),
    );
  } else {
    logger.info(
      { live_model: model.id },
      "the registry default is served by the Worker's remote tier: this node takes no file jobs",
    );
  }
  if (config.contentConcurrency > 0) {
    const content = contentDepsFromEnv(
      process.env,
      translator ? (...args) => translator.translate(...args) : undefined,
    );
    loops.push(
      new LeaseLoop({
        client,
        health,
        ...leaseLoopWork("render", { content, client }),
        concurrency: config.contentConcurrency,
        heartbeat,
        stallMs: config.taskStallSec * 1000,
        onSlotsExhausted: restartWhenExhausted,
        logger,
      }),
    );
    previews.published = publishMissingPreviews(
      client,
      { ...content, signal: previews.stop.signal },
      logger,
    ).catch((error: unknown) => {
      if (!previews.stop.signal.aborted)
        logger.warn({ err: String(error) }, "catalog previews not published");
    });
  }
  for (const loop of loops) loop.start();
  logger.info(
    { worker: config.workerUrl, node_id: config.nodeId, concurrency: config.concurrency },
    "pulling work",
  );
  const liveOptions = liveOptionsFromEnv(process.env, config.maxTokens, config.threads);
  live =
    liveOptions.capacity > 0
      ? startLiveService({
          workerUrl: config.workerUrl,
          token: config.token,
          nodeId: config.nodeId,
          modelId: model.id,
          model: model.whisper,
          options: liveOptions,
          vad,
          translator,
          speech: liveSpeechFromEnv(process.env),
          logger,
        })
      : null;

  process.on("SIGTERM", () => void stop("SIGTERM", 0));
  process.on("SIGINT", () => void stop("SIGINT", 0));
}

main().catch((error: unknown) => {
  baseLogger.fatal(
    { err: error instanceof Error ? error.message : String(error) },
    "inference node failed to start",
  );
  process.exit(1);
});
