import { type Browser, chromium } from "playwright-core";

/**
 * Debian's Chromium (apt package `chromium`; no browser download) driven by playwright-core, with the
 * flags that keep it off the network on these machines. playwright's launch() gives every browser a
 * fresh temporary profile (user-data-dir) of its own. The browser tests (test/browser/chromium.ts) and
 * the node tests that look at a rendered file share it.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...FLAGS, ...extraArgs] });
}
