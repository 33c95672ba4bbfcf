import { hostname } from "node:os";
import { parseArgs } from "node:util";
import { z } from "zod";
import { defaultThreads } from "../native/index.ts";
import { parseAllowlist } from "../protocol/url-policy.ts";

/**
 * Node configuration from flags, then environment, then defaults.
 *
 *   npm run node -- --worker-url URL --token T [--model PATH] [--concurrency N] [--threads N]
 *                   [--thread-policy adaptive|fixed]
 */
export const NodeConfig = z.object({
  workerUrl: z.url(),
  token: z.string().min(8, "NODE_TOKEN must be set (--token or NODE_TOKEN)"),
  nodeId: z.string().min(1),
  /** Explicit model file; otherwise the registry default's file under modelsDir. */
  modelPath: z.string().optional(),
  modelsDir: z.string(),
  concurrency: z.coerce.number().int().min(1).max(16),
  /** Content renders at once (their own loop); 0 = this node renders none. */
  contentConcurrency: z.coerce.number().int().min(0).max(16),
  threads: z.coerce.number().int().min(1).max(64),
  /**
   * adaptive: a decode gets its threads only while that many cores are idle (shared machines);
   * fixed: always `threads`, spinning (a node whose cores are its own). native/thread-policy.ts.
   */
  threadPolicy: z.enum(["adaptive", "fixed"]),
  /**
   * The local platform's pid when it runs on this machine (`npm start` passes wrangler dev's): the
   * adaptive policy does not take its burst for this request as a neighbour (native/cpu-meter.ts).
   */
  platformPid: z.coerce.number().int().min(1).optional(),
  heartbeatMs: z.coerce.number().int().min(200),
  diarize: z.boolean(),
  /** Voice activity detector: the Silero model (default) or the energy detector it falls back to. */
  vad: z.enum(["silero", "energy"]),
  /** File jobs: non-speech stretches longer than this many seconds are not decoded (0 = decode all). */
  skipNonSpeechSec: z.coerce.number().min(0).max(600),
  /** Longest media accepted (bytes) — the API's 2 GB limit. */
  maxMediaBytes: z.number().int().positive(),
  /** Longest one media download may take (seconds), request to last byte; longer fails `media_unreachable`. */
  mediaDownloadMaxSec: z.coerce.number().int().min(1).max(86_400),
  /**
   * The slowest a media download may run, in bytes a second over each minute once its response has
   * begun (0 = no minimum): a source that trickles bytes would otherwise hold a slot up to the time limit.
   */
  mediaMinBytesPerSec: z.coerce.number().int().min(0),
  /**
   * A leased task silent this long (no progress, partial result or media bytes) is stopped and fails
   * `task_stalled`: the heartbeat alone would keep a hung decode or ffmpeg `processing` forever.
   */
  taskStallSec: z.coerce.number().int().min(1).max(86_400),
  /** Bound on tokens per segment (0 = whisper's own cap); synthetic-model tests use it to stay fast. */
  maxTokens: z.coerce.number().int().min(0),
  /** Temperature step of whisper's fallback re-decodes (default 0.2); 0 = greedy once (benchmarks). */
  temperatureInc: z.coerce.number().min(0).max(1),
  tempDir: z.string().optional(),
  /** Grace period for running tasks on SIGTERM before they are handed back. */
  drainMs: z.coerce.number().int().min(0),
  /** host:port entries exempt from the SSRF address rule (tests, private deployments). */
  urlAllowlist: z.string().default("").transform(parseAllowlist),
});
export type NodeConfig = z.infer<typeof NodeConfig>;
export type VadKind = NodeConfig["vad"];

const bool = (value: string | undefined, fallback: boolean) =>
  value === undefined ? fallback : !["0", "false", "no", "off"].includes(value.toLowerCase());

/** Reads the configuration; throws a readable message when something required is missing. */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): NodeConfig {
  const { values } = parseArgs({
    args: argv,
    options: {
      "worker-url": { type: "string" },
      token: { type: "string" },
      "node-id": { type: "string" },
      model: { type: "string" },
      "models-dir": { type: "string" },
      concurrency: { type: "string" },
      threads: { type: "string" },
      "thread-policy": { type: "string" },
      "no-diarize": { type: "boolean" },
    },
  });
  const parsed = NodeConfig.safeParse({
    workerUrl: values["worker-url"] ?? env.VOXEDGE_WORKER_URL ?? "http://127.0.0.1:8787",
    token: values.token ?? env.NODE_TOKEN ?? "",
    nodeId: values["node-id"] ?? env.VOXEDGE_NODE_ID ?? `${hostname()}-${process.pid}`,
    modelPath: values.model ?? env.VOXEDGE_MODEL,
    modelsDir: values["models-dir"] ?? env.VOXEDGE_MODELS_DIR ?? "models",
    concurrency: values.concurrency ?? env.VOXEDGE_CONCURRENCY ?? 1,
    contentConcurrency: env.VOXEDGE_CONTENT_CONCURRENCY ?? 1,
    threads: values.threads ?? env.VOXEDGE_THREADS ?? defaultThreads(),
    threadPolicy: values["thread-policy"] ?? env.VOXEDGE_THREAD_POLICY ?? "adaptive",
    platformPid: env.VOXEDGE_PLATFORM_PID || undefined,
    heartbeatMs: env.VOXEDGE_HEARTBEAT_MS ?? 5000,
    diarize: values["no-diarize"] ? false : bool(env.VOXEDGE_DIARIZE, true),
    vad: env.VOXEDGE_VAD ?? "silero",
    skipNonSpeechSec: env.VOXEDGE_VAD_SKIP_SEC ?? 2,
    maxMediaBytes: 2 * 1024 ** 3,
    mediaDownloadMaxSec: env.VOXEDGE_MEDIA_DOWNLOAD_MAX_SEC ?? 1800,
    mediaMinBytesPerSec: env.VOXEDGE_MEDIA_MIN_BYTES_PER_SEC ?? 8192,
    taskStallSec: env.VOXEDGE_TASK_STALL_SEC ?? 900,
    maxTokens: env.VOXEDGE_MAX_TOKENS ?? 0,
    temperatureInc: env.VOXEDGE_TEMPERATURE_INC ?? 0.2,
    tempDir: env.VOXEDGE_TEMP_DIR,
    drainMs: env.VOXEDGE_DRAIN_MS ?? 30_000,
    urlAllowlist: env.URL_ALLOWLIST,
  });
  if (!parsed.success) {
    throw new Error(
      `inference node configuration: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  return parsed.data;
}
