/**
 * Runs Apertium APy, the offline rule-based translation server (Debian: `apt-get install apertium-apy
 * apertium-eng-spa`), for `npm start`, the end-to-end tests and the benches, on 127.0.0.1 only.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
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

/**
 * APy's own `main()` with the address its server binds fixed to 127.0.0.1. APy has no bind option and
 * calls tornado's `bind(port)`, which listens on every interface: an open translation server for the
 * whole network. Run by the Python that runs `apertium-apy`, with APy's usual arguments after it.
 */
const LOOPBACK_LAUNCHER = `
import sys, tornado.tcpserver
bind = tornado.tcpserver.TCPServer.bind
tornado.tcpserver.TCPServer.bind = lambda self, port, address=None, *rest, **named: bind(self, port, "127.0.0.1", *rest, **named)
from apertium_apy.apy import main
sys.argv[0] = "apertium-apy"
sys.exit(main())
`;

/** The interpreter on the first line of the `apertium-apy` script (Debian's: /usr/bin/python3). */
function apertiumPython(): string {
  const script = spawnSync("sh", ["-c", "command -v apertium-apy"], { encoding: "utf8" }).stdout.trim();
  const interpreter = /^#!\s*(\S*python\S*)/.exec(readFileSync(script, "utf8"))?.[1];
  if (!interpreter) throw new Error(`${script} is not the Python script this launcher expects`);
  return interpreter;
}

/** Spawns APy on 127.0.0.1:`port` (npm start supervises it and restarts it on the same port). */
export function spawnApertium(port: number, options: { quiet?: boolean } = {}): ChildProcess {
  return spawn(apertiumPython(), ["-c", LOOPBACK_LAUNCHER, "-p", String(port), APERTIUM_MODES], {
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
