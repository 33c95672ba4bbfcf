/// <reference path="./provided-context.d.ts" />
/**
 * vitest globalSetup of the browser tests: the whole platform once for every file (wrangler dev serving
 * the API and web/dist, one inference node with the synthetic micro model: transcripts are noise, so the
 * tests check structure and flow, not words). The stack exposes a made-up local dev key, so the console's
 * pre-fill is observable (and, being unknown to the API, exercises the bad-key path).
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { type Stack, startStack } from "../e2e/stack.ts";

/** What the sign-in form gets pre-filled with on 127.0.0.1 (CONSOLE_DEV_KEY, as `npm start` sets it). */
export const EXPOSED_DEV_KEY = "vx_console_devkey_probe";
const SCREENSHOTS = path.resolve("test/browser/screenshots");

let stack: Stack | undefined;

export async function setup(project: TestProject): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  stack = await startStack({ allowlist: "", leaseTtlSec: 30, vars: { CONSOLE_DEV_KEY: EXPOSED_DEV_KEY } });
  await stack.startNode();
  console.log(`browser tests: screenshots in ${SCREENSHOTS}`);
  project.provide("consoleStack", {
    url: stack.url,
    key: stack.key,
    devKey: EXPOSED_DEV_KEY,
    screenshots: SCREENSHOTS,
  });
}

export async function teardown(): Promise<void> {
  await stack?.stop();
}
