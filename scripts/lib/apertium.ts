/**
 * Runs Apertium APy, the offline rule-based translation server (Debian: `apt-get install apertium-apy
 * apertium-eng-spa`), for `npm start`, the end-to-end tests and the benches. APy listens on every
 * interface (it has no bind option), so it is only started on a free local port for local use.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { freePort } from "./ports.ts";

/** Where Debian's Apertium language pairs put their mode files. */
export const APERTIUM_MODES = "/usr/share/apertium/modes";

/** Whether `apertium-apy` is on the PATH and some pair is installed. */
export function apertiumInstalled(): boolean {
  const found = spawnSync("sh", ["-c", "command -v apertium-apy"], { encoding: "utf8" });
  return found.status === 0 && existsSync(APERTIUM_MODES);
}

export interface Apertium {
  /** http://127.0.0.1:PORT */
  url: string;
  process: ChildProcess;
  stop: () => Promise<void>;
}

/** Spawns APy on `port` (npm start supervises it and restarts it on the same port). */
export function spawnApertium(port: number, options: { quiet?: boolean } = {}): ChildProcess {
  return spawn("apertium-apy", ["-p", String(port), APERTIUM_MODES], {
    stdio: ["ignore", "ignore", options.quiet === false ? "inherit" : "ignore"],
  });
}

/** Resolves once APy at `url` lists its pairs (it takes a second or two); throws if `child` exits first. */
export async function waitForApertium(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 120; i++) {
    if (child.exitCode !== null) throw new Error(`apertium-apy exited during start-up (${child.exitCode})`);
    try {
      if ((await fetch(`${url}/listPairs`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error("apertium-apy did not answer within 30 s");
}

/**
 * Starts APy on a free port and resolves once it lists its pairs.
 *
 * @example
 * const apy = await startApertium();
 * process.env.VOXEDGE_MT_URL = apy.url;
 * await apy.stop();
 */
export async function startApertium(options: { quiet?: boolean } = {}): Promise<Apertium> {
  const port = await freePort();
  const child = spawnApertium(port, options);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  };
  try {
    await waitForApertium(url, child);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, process: child, stop };
}
