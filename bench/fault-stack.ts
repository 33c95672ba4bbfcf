/**
 * The whole local platform for the reliability and soak benches, built to be broken: wrangler dev on a
 * fixed port over a state folder it keeps (so it can be stopped and started again with its persisted
 * D1, R2 and Durable Objects), the Worker's cron fired as npm start does, and inference nodes run under
 * the same Supervisor as npm start (a killed node comes back by itself). Every node's JSON log line is
 * kept, so a bench can tell which node ran which task, when, and how often.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { ensureSyntheticModel } from "../native/model/synthetic.ts";
import { createKey } from "../scripts/keys.ts";
import { startCronTicker } from "../scripts/lib/cron.ts";
import { freePort } from "../scripts/lib/ports.ts";
import { type Supervised, Supervisor, type SupervisorEvent } from "../scripts/lib/supervisor.ts";
import { applyMigrations, startWranglerDev } from "../scripts/lib/wrangler.ts";
import { tempState } from "../test/helpers/local-stack.ts";
import { descendants } from "./proc.ts";

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

export interface FaultStackOptions {
  /** API keys to create (named key-0, key-1, ...). */
  keys: number;
  /** Worker variables beside NODE_TOKEN and UPLOAD_SIGNING_SECRET. */
  vars: Record<string, string>;
  /** How often the cron handler is fired (npm start: every minute). */
  cronEveryMs: number;
}

export class FaultStack {
  readonly url: string;
  readonly nodeLog: NodeLogLine[] = [];
  readonly supervisorEvents: (SupervisorEvent & { at: number })[] = [];
  private wrangler: ChildProcess | null = null;
  private readonly nodes: Supervisor;
  private readonly supervised = new Map<string, Supervised>();
  private readonly cron: { stop: () => void };

  private constructor(
    readonly port: number,
    readonly state: { dir: string; remove: () => void },
    readonly token: string,
    readonly keys: string[],
    private readonly vars: Record<string, string>,
    cronEveryMs: number,
  ) {
    this.url = `http://127.0.0.1:${port}`;
    this.nodes = new Supervisor({
      log: (line) => process.stderr.write(`${line}\n`),
      onEvent: (event) => this.supervisorEvents.push({ ...event, at: Date.now() }),
      stopTimeoutMs: 5_000,
    });
    this.cron = startCronTicker(this.url, cronEveryMs);
  }

  /** Creates the state, the keys, and starts wrangler dev. */
  static async start(options: FaultStackOptions): Promise<FaultStack> {
    const state = tempState();
    const target = { remote: false, persistTo: state.dir };
    applyMigrations(target);
    const keys: string[] = [];
    for (let i = 0; i < options.keys; i++) keys.push((await createKey(`key-${i}`, target)).key);
    const vars = {
      NODE_TOKEN: randomBytes(16).toString("hex"),
      UPLOAD_SIGNING_SECRET: randomBytes(16).toString("hex"),
      ...options.vars,
    };
    const stack = new FaultStack(await freePort(), state, vars.NODE_TOKEN, keys, vars, options.cronEveryMs);
    await stack.startPlatform();
    return stack;
  }

  /** Starts wrangler dev (same port, same state) and waits until /health answers. */
  async startPlatform(): Promise<void> {
    const child = startWranglerDev(this.port, {
      persistTo: this.state.dir,
      vars: this.vars,
      quiet: true,
      testScheduled: true,
    });
    this.wrangler = child;
    for (let i = 0; i < 480; i++) {
      if (child.exitCode !== null) throw new Error("wrangler dev exited during start-up");
      try {
        if ((await fetch(`${this.url}/health`)).ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error("wrangler dev did not answer within 2 minutes");
  }

  /** Stops wrangler dev as Ctrl-C would (SIGTERM), and waits for it to exit. */
  async stopPlatform(): Promise<void> {
    const child = this.wrangler;
    this.wrangler = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }

  /** The workerd processes of the running wrangler dev. */
  workerdPids(): number[] {
    return this.wrangler?.pid ? descendants(this.wrangler.pid, /workerd/) : [];
  }

  /**
   * Starts a supervised inference node named `name` (its node id, kept across restarts) on the
   * synthetic micro model; resolves once it pulls work.
   */
  async startNode(name: string, env: Record<string, string>): Promise<Supervised> {
    const model = await ensureSyntheticModel("micro");
    const args = ["--import", "tsx", "inference-node/main.ts", "--worker-url", this.url];
    const spawnNode = () => {
      const child = spawn(
        process.execPath,
        [...args, "--token", this.token, "--model", model, "--node-id", name],
        {
          stdio: ["ignore", "pipe", "inherit"],
          env: { ...process.env, VOXEDGE_LOG_LEVEL: "info", ...env },
        },
      );
      if (child.stdout)
        createInterface({ input: child.stdout }).on("line", (line) => this.record(name, line));
      return child;
    };
    const node = this.nodes.start({ name, spawn: spawnNode });
    this.supervised.set(name, node);
    await this.waitForLog((line) => line.node === name && line.msg === "pulling work", 60_000);
    return node;
  }

  /** The pid of a node's current process (undefined while it waits for a restart). */
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

  async stop(): Promise<void> {
    this.cron.stop();
    await this.nodes.stop();
    await this.stopPlatform();
    this.state.remove();
  }
}
