/// <reference path="./provided-context.d.ts" />
/**
 * vitest globalSetup of the browser tests: the whole platform once for every file (wrangler dev serving
 * the API and web/dist, one inference node with the synthetic micro model: transcripts are noise, so the
 * tests check structure and flow, not words). The node translates with the real Apertium APy (en↔es,
 * started here) for Translate and the rooms, and renders Studio's content with the real espeak-ng and
 * ffmpeg. The stack exposes a made-up local dev key, so the console's pre-fill is observable (and,
 * being unknown to the API, exercises the bad-key path).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { type Apertium, startApertium } from "../../scripts/lib/apertium.ts";
import { type Stack, startStack, writeWav } from "../e2e/stack.ts";
import { speechPcm } from "../native/audio.ts";

/** What the sign-in form gets pre-filled with on 127.0.0.1 (CONSOLE_DEV_KEY, as `npm start` sets it). */
export const EXPOSED_DEV_KEY = "vx_console_devkey_probe";
const SCREENSHOTS = path.resolve("test/browser/screenshots");

let stack: Stack | undefined;
let apertium: Apertium | undefined;
let mediaServer: Server | undefined;
let mediaDir: string | undefined;

/** A file host on loopback for "From a URL" jobs (the stack's SSRF allowlist lets exactly it through). */
async function startMediaServer(): Promise<string> {
  mediaDir = mkdtempSync(path.join(tmpdir(), "voxedge-browser-media-"));
  writeWav(path.join(mediaDir, "talk.wav"), await speechPcm("A short talk, fetched from a link."));
  const dir = mediaDir;
  mediaServer = createServer((req, res) => {
    if (req.url !== "/talk.wav") return void res.writeHead(404).end();
    const body = readFileSync(path.join(dir, "talk.wav"));
    res.writeHead(200, { "content-type": "audio/wav", "content-length": body.length });
    res.end(req.method === "HEAD" ? undefined : body);
  });
  const server = mediaServer;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function setup(project: TestProject): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const mediaOrigin = await startMediaServer();
  [apertium, stack] = await Promise.all([
    startApertium(),
    startStack({
      allowlist: new URL(mediaOrigin).host,
      leaseTtlSec: 30,
      vars: { CONSOLE_DEV_KEY: EXPOSED_DEV_KEY },
    }),
  ]);
  await stack.startNode({ VOXEDGE_MT_BACKEND: "apertium", VOXEDGE_MT_URL: apertium.url });
  await translationReady(stack.url);
  console.log(`browser tests: screenshots in ${SCREENSHOTS}`);
  project.provide("consoleStack", {
    url: stack.url,
    key: stack.key,
    devKey: EXPOSED_DEV_KEY,
    screenshots: SCREENSHOTS,
    mediaOrigin,
  });
}

/** The node reports its translation pairs with its lease calls: /api/v1/languages answers 200 once it has. */
async function translationReady(url: string): Promise<void> {
  for (let i = 0; i < 120; i++) {
    if ((await fetch(`${url}/api/v1/languages`)).status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error("the node's translation languages did not reach the Worker within 30 s");
}

export async function teardown(): Promise<void> {
  await stack?.stop();
  await apertium?.stop();
  await new Promise((resolve) => (mediaServer ? mediaServer.close(resolve) : resolve(null)));
  if (mediaDir) rmSync(mediaDir, { recursive: true, force: true });
}
