import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../scripts/lib/ports.ts";
import { type DevOptions, startWranglerDev } from "../../scripts/lib/wrangler.ts";

export { freePort };

/** A throwaway local state folder (D1/R2/DO) for one test file. */
export function tempState(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "voxedge-state-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface LocalWorker {
  url: string;
  stop: () => Promise<void>;
}

/** Runs the real Worker under `wrangler dev` and waits until /health answers. */
export async function startLocalWorker(options: DevOptions & { persistTo: string }): Promise<LocalWorker> {
  const port = await freePort();
  const child: ChildProcess = startWranglerDev(port, { quiet: true, ...options });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  };
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) throw new Error("wrangler dev exited during start-up");
    try {
      if ((await fetch(`${url}/health`)).ok) return { url, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error("wrangler dev did not answer within a minute");
}
