import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createVoxedgeClient, unwrap, type VoxedgeClient } from "../../client/index.ts";
import { ensureSyntheticModel, type SyntheticSize } from "../../native/model/synthetic.ts";
import { pcmWavHeader } from "../../protocol/wav.ts";
import { createKey } from "../../scripts/keys.ts";
import { applyMigrations } from "../../scripts/lib/wrangler.ts";
import type { TaskStatusResponse } from "../../worker/schemas/tasks.ts";
import { type LocalWorker, startLocalWorker, tempState } from "../helpers/local-stack.ts";

/** The whole platform for end-to-end tests: wrangler dev over throwaway state, plus inference nodes. */
export interface Stack {
  url: string;
  key: string;
  /** The typed client (client/) on this stack with its API key. */
  client: VoxedgeClient;
  /** More API keys (`extraKeys` asked at start), one per simulated user. */
  keys: string[];
  /** The NODE_TOKEN of this stack, for nodes run inside the test process (live bench). */
  token: string;
  /**
   * Starts an inference node (synthetic micro model) as one process, so SIGKILL really kills it;
   * `env` adds to its environment.
   */
  startNode: (env?: Record<string, string>) => Promise<ChildProcess>;
  poll: (taskId: string) => Promise<TaskStatusResponse>;
  /** Polls until the task is done or failed. */
  settle: (taskId: string, timeoutMs?: number) => Promise<TaskStatusResponse>;
  stop: () => Promise<void>;
}

export async function startStack(options: {
  allowlist: string;
  leaseTtlSec: number;
  /** More Worker variables (e.g. LIVE_IDLE_TIMEOUT_MS). */
  vars?: Record<string, string>;
  /** Synthetic model the nodes serve (default micro: fast; benches use base for real dimensions). */
  model?: SyntheticSize;
  /** API keys to create besides `key`, for benches that act as several users. */
  extraKeys?: number;
}): Promise<Stack> {
  const state = tempState();
  const token = randomBytes(16).toString("hex");
  const target = { remote: false, persistTo: state.dir };
  applyMigrations(target);
  const { key } = await createKey("e2e", target);
  const keys: string[] = [];
  for (let i = 0; i < (options.extraKeys ?? 0); i++) keys.push((await createKey(`e2e-${i}`, target)).key);
  const worker: LocalWorker = await startLocalWorker({
    persistTo: state.dir,
    vars: {
      NODE_TOKEN: token,
      UPLOAD_SIGNING_SECRET: randomBytes(16).toString("hex"),
      URL_ALLOWLIST: options.allowlist,
      LEASE_TTL_SEC: String(options.leaseTtlSec),
      ...options.vars,
    },
  });
  const model = await ensureSyntheticModel(options.model ?? "micro");
  const nodes: ChildProcess[] = [];
  const client = createVoxedgeClient({ baseUrl: worker.url, apiKey: key });

  const startNode = async (extraEnv: Record<string, string> = {}) => {
    const node = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "inference-node/main.ts",
        "--worker-url",
        worker.url,
        "--token",
        token,
        "--model",
        model,
      ],
      {
        stdio: ["ignore", "ignore", "inherit"],
        env: {
          ...process.env,
          URL_ALLOWLIST: options.allowlist,
          VOXEDGE_HEARTBEAT_MS: "500",
          VOXEDGE_MAX_TOKENS: "16",
          VOXEDGE_THREADS: "1",
          VOXEDGE_LOG_LEVEL: "warn",
          VOXEDGE_DRAIN_MS: "1000",
          ...extraEnv,
        },
      },
    );
    nodes.push(node);
    for (let i = 0; i < 120; i++) {
      const health = await unwrap(client.GET("/health"));
      if (health.asr_loaded) return node;
      if (node.exitCode !== null) throw new Error("inference node exited during start-up");
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error("inference node did not report a loaded model within 30 s");
  };

  const poll = (taskId: string): Promise<TaskStatusResponse> =>
    unwrap(client.GET("/transcribe/{task_id}", { params: { path: { task_id: taskId } } }));

  const settle = async (taskId: string, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await poll(taskId);
      if (status.status === "done" || status.status === "failed") return status;
      if (Date.now() > deadline)
        throw new Error(`task ${taskId} still ${status.status} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 300));
    }
  };

  const stop = async () => {
    for (const node of nodes) if (node.exitCode === null) node.kill("SIGKILL");
    await worker.stop();
    state.remove();
  };
  return { url: worker.url, key, keys, client, token, startNode, poll, settle, stop };
}

/** Writes 16 kHz mono Float32 samples as a 16-bit PCM WAV file. */
export function writeWav(path: string, samples: Float32Array, sampleRate = 16_000): void {
  const data = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) {
    data.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round((samples[i] ?? 0) * 32767))), i * 2);
  }
  const header = pcmWavHeader({ channels: 1, sampleRate, bitsPerSample: 16 }, data.length);
  writeFileSync(path, Buffer.concat([header, data]));
}
