/**
 * The whole local platform for the tests and benches, built from `npm start`'s pieces (scripts/lib):
 * wrangler dev on 127.0.0.1 over a throwaway state folder (D1 migrated, API keys made), inference
 * nodes (one process each, or supervised as npm start runs them, restarted when killed), and the
 * extras a test asks for: Apertium APy, a loopback file host its SSRF allowlist lets through, the
 * Worker's cron fired on a timer. wrangler dev can be stopped and started again on the same port and
 * state. `stop()` ends every process and removes the state.
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createVoxedgeClient, unwrap, type VoxedgeClient } from "../../client/index.ts";
import { ensureSyntheticModel, type SyntheticSize } from "../../native/model/synthetic.ts";
import { createKey } from "../../scripts/keys.ts";
import { type Apertium, startApertium } from "../../scripts/lib/apertium.ts";
import { startCronTicker } from "../../scripts/lib/cron.ts";
import { spawnInferenceNode } from "../../scripts/lib/inference-node.ts";
import { freePort } from "../../scripts/lib/ports.ts";
import { waitForOk } from "../../scripts/lib/ready.ts";
import { type Supervised, Supervisor } from "../../scripts/lib/supervisor.ts";
import { applyMigrations, startWranglerDev } from "../../scripts/lib/wrangler.ts";
import type { TaskStatusResponse } from "../../worker/schemas/tasks.ts";
import { serveFolder } from "./file-host.ts";

/** What a test node runs with unless told otherwise: quick heartbeats and drain, short decodes, one thread. */
const QUICK_NODE_ENV: Record<string, string> = {
  VOXEDGE_HEARTBEAT_MS: "500",
  VOXEDGE_MAX_TOKENS: "16",
  VOXEDGE_THREADS: "1",
  VOXEDGE_LOG_LEVEL: "warn",
  VOXEDGE_DRAIN_MS: "1000",
};

export interface PlatformOptions {
  /** Worker variables beside a random NODE_TOKEN and UPLOAD_SIGNING_SECRET (which these may replace). */
  vars?: Record<string, string>;
  /** No NODE_TOKEN: only per-node tokens (`npm run nodes`) open the node routes. */
  withoutNodeToken?: boolean;
  /** Hosts (host:port) the SSRF guards of the Worker and the nodes let through (URL_ALLOWLIST). */
  allowlist?: string[];
  /** API keys to create (default 1). */
  keys?: number;
  /** Serve GET /__scheduled, which runs the Worker's cron handler. */
  testScheduled?: boolean;
  /** Fire the cron handler this often, as npm start does (serves /__scheduled too). */
  cronEveryMs?: number;
  /** Run Apertium APy; the nodes translate with it unless their own env says otherwise. */
  apertium?: boolean;
  /** Serve this folder's files over HTTP on loopback at `filesOrigin`; the allowlist lets it through. */
  serveDir?: string;
  /** The synthetic model a node serves unless told otherwise (default micro). */
  model?: SyntheticSize;
  /** Every node's environment under its own (default QUICK_NODE_ENV). */
  nodeEnv?: Record<string, string>;
}

export interface NodeOptions {
  /** Added to the node's environment, over the platform's `nodeEnv`. */
  env?: Record<string, string>;
  model?: SyntheticSize;
  /** Keep the node's JSON log lines (info level) in `nodeLog`; its stdout is a pipe to read as well. */
  logs?: boolean;
}

/** One line a node logged (pino JSON), with the node's name. */
export interface NodeLogLine {
  node: string;
  pid: number;
  /** Unix milliseconds. */
  time: number;
  msg: string;
  task_id?: string;
  attempt?: number;
}

/** A throwaway local state folder (D1/R2/DO). */
export function tempState(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "voxedge-state-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export class LocalPlatform {
  readonly url: string;
  /** The first of `keys`. */
  readonly key: string;
  /** The typed client (client/) on this platform with `key`. */
  readonly client: VoxedgeClient;
  readonly nodeLog: NodeLogLine[] = [];
  private wrangler: ChildProcess | null = null;
  private readonly nodes: ChildProcess[] = [];
  private readonly supervised = new Map<string, Supervised>();
  private readonly supervisor = new Supervisor({
    log: (line) => process.stderr.write(`${line}\n`),
    stopTimeoutMs: 5_000,
  });
  private cron: { stop: () => void } | null = null;

  private constructor(
    readonly port: number,
    readonly state: { dir: string; remove: () => void },
    /** The Worker's NODE_TOKEN ("" with `withoutNodeToken`). */
    readonly token: string,
    /** Every API key created, with its id (`npm run keys` names a key by it). */
    readonly apiKeys: { id: string; key: string }[],
    private readonly vars: Record<string, string>,
    private readonly options: PlatformOptions,
    /** The running APy, with `apertium`. */
    readonly apertium: Apertium | null,
    private readonly files: Server | null,
    /** http://127.0.0.1:PORT of the file host, with `serveDir`. */
    readonly filesOrigin: string,
  ) {
    this.url = `http://127.0.0.1:${port}`;
    this.key = apiKeys[0]?.key ?? "";
    this.client = createVoxedgeClient({ baseUrl: this.url, apiKey: this.key });
  }

  /** Every API key, `key` first. */
  get keys(): string[] {
    return this.apiKeys.map((k) => k.key);
  }

  /** Migrates a fresh state, makes the keys, starts the extras and wrangler dev; resolves once /health answers. */
  static async start(options: PlatformOptions = {}): Promise<LocalPlatform> {
    const state = tempState();
    const started: { apertium?: Apertium; files?: { server: Server; origin: string } } = {};
    try {
      const target = { remote: false, persistTo: state.dir };
      applyMigrations(target);
      const apiKeys = [];
      for (let i = 0; i < (options.keys ?? 1); i++) apiKeys.push(await createKey(`key-${i}`, target));
      [started.apertium, started.files] = await Promise.all([
        options.apertium ? startApertium() : undefined,
        options.serveDir ? serveFolder(options.serveDir) : undefined,
      ]);
      const allowlist = [...(options.allowlist ?? [])];
      if (started.files) allowlist.push(new URL(started.files.origin).host);
      const token = options.withoutNodeToken ? "" : randomBytes(16).toString("hex");
      const vars = {
        ...(token ? { NODE_TOKEN: token } : {}),
        UPLOAD_SIGNING_SECRET: randomBytes(16).toString("hex"),
        ...(options.allowlist || started.files ? { URL_ALLOWLIST: allowlist.join(",") } : {}),
        ...options.vars,
      };
      const platform = new LocalPlatform(
        await freePort(),
        state,
        token,
        apiKeys,
        vars,
        options,
        started.apertium ?? null,
        started.files?.server ?? null,
        started.files?.origin ?? "",
      );
      await platform.startWorker();
      if (options.cronEveryMs) platform.cron = startCronTicker(platform.url, options.cronEveryMs);
      return platform;
    } catch (error) {
      await started.apertium?.stop();
      started.files?.server.close();
      state.remove();
      throw error;
    }
  }

  /** Starts wrangler dev (same port, same state) and waits until /health answers. */
  async startWorker(): Promise<void> {
    const child = startWranglerDev(this.port, {
      persistTo: this.state.dir,
      vars: this.vars,
      quiet: true,
      testScheduled: Boolean(this.options.testScheduled || this.options.cronEveryMs),
    });
    this.wrangler = child;
    // What wrangler printed last, for the error when it does not come up.
    let stderr = "";
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (text: string) => {
      stderr = (stderr + text).slice(-4_000);
    });
    try {
      await waitForOk(`${this.url}/health`, { timeoutMs: 120_000, exited: () => child.exitCode !== null });
    } catch (error) {
      await this.stopWorker();
      throw new Error(`wrangler dev on port ${this.port}: ${(error as Error).message}\n${stderr}`);
    }
  }

  /** Stops wrangler dev as Ctrl-C would (SIGTERM), and waits for it to exit. */
  async stopWorker(): Promise<void> {
    const child = this.wrangler;
    this.wrangler = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }

  /** The pid of the running wrangler dev (its workerd processes are its descendants). */
  workerPid(): number | undefined {
    return this.wrangler?.pid;
  }

  /** The environment of a node: the platform's defaults, its allowlist and translator, then `env`. */
  private nodeEnvOf(options: NodeOptions): Record<string, string> {
    return {
      ...(this.options.nodeEnv ?? QUICK_NODE_ENV),
      ...(this.vars.URL_ALLOWLIST === undefined ? {} : { URL_ALLOWLIST: this.vars.URL_ALLOWLIST }),
      ...(this.apertium ? { VOXEDGE_MT_BACKEND: "apertium", VOXEDGE_MT_URL: this.apertium.url } : {}),
      ...(options.logs ? { VOXEDGE_LOG_LEVEL: "info" } : {}),
      ...options.env,
    };
  }

  private async spawnNode(name: string | undefined, options: NodeOptions): Promise<() => ChildProcess> {
    if (!this.token) throw new Error("this platform has no NODE_TOKEN for its nodes");
    const model = await ensureSyntheticModel(options.model ?? this.options.model ?? "micro");
    const env = this.nodeEnvOf(options);
    return () => {
      const child = spawnInferenceNode({
        workerUrl: this.url,
        token: this.token,
        model,
        nodeId: name,
        // as npm start does: wrangler dev's work for a request is not a neighbour's (native/cpu-meter.ts)
        env: { ...(this.wrangler?.pid && { VOXEDGE_PLATFORM_PID: String(this.wrangler.pid) }), ...env },
        stdout: options.logs ? "pipe" : "ignore",
      });
      if (child.stdout)
        createInterface({ input: child.stdout }).on("line", (line) => this.record(name ?? "", line));
      return child;
    };
  }

  /**
   * Starts an inference node as one process (SIGKILL really kills it); resolves once /health reports
   * a loaded model.
   */
  async startNode(options: NodeOptions = {}): Promise<ChildProcess> {
    const node = (await this.spawnNode(undefined, options))();
    this.nodes.push(node);
    for (let i = 0; i < 240; i++) {
      const health = await unwrap(this.client.GET("/health"));
      if (health.asr_loaded) return node;
      if (node.exitCode !== null) throw new Error("inference node exited during start-up");
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error("inference node did not report a loaded model within a minute");
  }

  /**
   * Starts an inference node named `name` (its node id, kept across restarts) under a Supervisor as
   * npm start runs it (a killed node comes back by itself), its log kept; resolves once it pulls work.
   */
  async superviseNode(name: string, options: NodeOptions = {}): Promise<Supervised> {
    const spawnNode = await this.spawnNode(name, { ...options, logs: true });
    const node = this.supervisor.start({ name, spawn: spawnNode });
    this.supervised.set(name, node);
    await this.waitForLog((line) => line.node === name && line.msg === "pulling work", 60_000);
    return node;
  }

  /** The pid of a supervised node's current process (undefined while it waits for a restart). */
  nodePid(name: string): number | undefined {
    return this.supervised.get(name)?.child?.pid;
  }

  private record(node: string, line: string): void {
    try {
      const parsed = JSON.parse(line) as Omit<NodeLogLine, "node">;
      this.nodeLog.push({ ...parsed, node });
    } catch {
      // not a log line
    }
  }

  /** Resolves with the first log line (from now on or already logged) that `match` accepts. */
  async waitForLog(match: (line: NodeLogLine) => boolean, timeoutMs: number): Promise<NodeLogLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.nodeLog.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error("no such node log line in time");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  poll(taskId: string): Promise<TaskStatusResponse> {
    return unwrap(this.client.GET("/transcribe/{task_id}", { params: { path: { task_id: taskId } } }));
  }

  /** Polls until the task is done or failed. */
  async settle(taskId: string, timeoutMs = 60_000): Promise<TaskStatusResponse> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await this.poll(taskId);
      if (status.status === "done" || status.status === "failed") return status;
      if (Date.now() > deadline)
        throw new Error(`task ${taskId} still ${status.status} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 300));
    }
  }

  /** Ends every process this platform started and removes its state. */
  async stop(): Promise<void> {
    this.cron?.stop();
    for (const node of this.nodes) if (node.exitCode === null) node.kill("SIGKILL");
    await this.supervisor.stop();
    await this.stopWorker();
    await this.apertium?.stop();
    if (this.files) {
      const files = this.files;
      files.closeAllConnections();
      await new Promise((resolve) => files.close(resolve));
    }
    this.state.remove();
  }
}
