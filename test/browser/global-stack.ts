/// <reference path="./provided-context.d.ts" />
/**
 * vitest globalSetup of the browser tests: the whole platform once for every file (wrangler dev serving
 * the API and web/dist, one inference node with the synthetic micro model: transcripts are noise, so the
 * tests check structure and flow, not words). The node translates with the real Apertium APy (en↔es,
 * started here) for Translate and the rooms, and renders Studio's content with the real espeak-ng and
 * ffmpeg. The stack exposes a made-up local dev key, so the console's pre-fill is observable (and,
 * being unknown to the API, exercises the bad-key path).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { buildConsoleIfStale } from "../../scripts/lib/console-build.ts";
import { LocalPlatform } from "../helpers/local-platform.ts";
import { writeWav } from "../helpers/wav.ts";
import { speechPcm } from "../native/audio.ts";

/** What the sign-in form gets pre-filled with on 127.0.0.1 (CONSOLE_DEV_KEY, as `npm start` sets it). */
export const EXPOSED_DEV_KEY = "vx_console_devkey_probe";
const SCREENSHOTS = path.resolve("test/browser/screenshots");

let platform: LocalPlatform | undefined;
let mediaDir: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // The tests drive the console of the code under test, not the one the last `npm install` built.
  buildConsoleIfStale();
  // The file host for "From a URL" jobs (the platform's SSRF allowlist lets exactly it through).
  mediaDir = mkdtempSync(path.join(tmpdir(), "voxedge-browser-media-"));
  writeWav(path.join(mediaDir, "talk.wav"), await speechPcm("A short talk, fetched from a link."));
  platform = await LocalPlatform.start({
    apertium: true,
    serveDir: mediaDir,
    vars: { LEASE_TTL_SEC: "30", CONSOLE_DEV_KEY: EXPOSED_DEV_KEY },
  });
  await platform.startNode();
  await translationReady(platform.url);
  console.log(`browser tests: screenshots in ${SCREENSHOTS}`);
  project.provide("consoleStack", {
    url: platform.url,
    key: platform.key,
    devKey: EXPOSED_DEV_KEY,
    screenshots: SCREENSHOTS,
    mediaOrigin: platform.filesOrigin,
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
  await platform?.stop();
  if (mediaDir) rmSync(mediaDir, { recursive: true, force: true });
}
