/**
 * One inference node process (inference-node/main.ts under tsx) against a Worker: `npm start` runs it
 * under its Supervisor, the test and bench platform (test/helpers/local-platform.ts) directly or
 * supervised.
 */
import { type ChildProcess, spawn } from "node:child_process";

export interface InferenceNodeSpec {
  workerUrl: string;
  /** The Worker's NODE_TOKEN. */
  token: string;
  /** Path of the ggml model file the node serves. */
  model: string;
  /** A fixed node id (kept across restarts), else the node makes one up. */
  nodeId?: string;
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** Where the node's JSON log (stdout) goes; stderr is always inherited. */
  stdout?: "ignore" | "inherit" | "pipe";
}

export function spawnInferenceNode(spec: InferenceNodeSpec): ChildProcess {
  const args = ["--import", "tsx", "inference-node/main.ts", "--worker-url", spec.workerUrl];
  args.push("--token", spec.token, "--model", spec.model);
  if (spec.nodeId) args.push("--node-id", spec.nodeId);
  return spawn(process.execPath, args, {
    stdio: ["ignore", spec.stdout ?? "inherit", "inherit"],
    env: { ...process.env, ...spec.env },
  });
}
