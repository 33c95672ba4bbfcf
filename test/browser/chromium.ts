import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { inject } from "vitest";

export { CHROMIUM, launchChromium } from "../helpers/chromium.ts";

export const stackInfo = () => inject("consoleStack");

/** A page of a fresh context already signed in with the stack's key (localStorage, as the console keeps it). */
export async function signedInPage(
  browser: Browser,
  options: Parameters<Browser["newContext"]>[0] = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const { key } = stackInfo();
  const context = await browser.newContext({ locale: "en-US", ...options });
  await context.addInitScript((apiKey) => {
    if (!localStorage.getItem("voxedge.apiKey")) localStorage.setItem("voxedge.apiKey", apiKey);
  }, key);
  return { context, page: await context.newPage() };
}

/**
 * Saves a full-page screenshot under the printed screenshots folder, taken in a window as tall as the
 * page: a full-page capture keeps the window's height, so what is held at the window's bottom (the
 * synthetic-model notice, position: sticky) was drawn across the middle of a long page.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const window = page.viewportSize();
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  const grow = window !== null && height > window.height;
  if (grow) await page.setViewportSize({ width: window.width, height });
  await page.screenshot({ path: path.join(stackInfo().screenshots, `${name}.png`), fullPage: true });
  if (grow) await page.setViewportSize(window);
}

/** A temporary folder for media the tests make; removed by the returned function. */
export function tempDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), "voxedge-browser-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The focused element's name (aria-label, its label, its text, else TAG:type) and outline style; for a
 * visually hidden input (a radio in a segmented control or a thumbnail, a file input) the outline of
 * the box it sits in, which draws its focus ring.
 */
export async function focusedElement(
  page: Page,
): Promise<{ label: string; outline: string; inMain: boolean }> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement;
    const hidden = element.getBoundingClientRect().width <= 1;
    const box = hidden ? ((element.closest(".drop-zone, label") as HTMLElement | null) ?? element) : element;
    const labelled = (element as HTMLInputElement).labels?.[0]?.textContent?.trim();
    return {
      label:
        element.getAttribute("aria-label") ||
        labelled ||
        element.textContent?.trim() ||
        `${element.tagName}:${element.getAttribute("type") ?? ""}`,
      outline: getComputedStyle(box).outlineStyle,
      inMain: Boolean(element.closest("main")),
    };
  });
}

/**
 * Every Tab stop inside <main>, in order, from main itself (focused first) to where Tab leaves it
 * (at most `max` stops): each stop's name and outline style.
 */
export async function tabStops(page: Page, max = 60): Promise<{ label: string; outline: string }[]> {
  await page.locator("main").focus();
  const stops: { label: string; outline: string }[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab");
    const { inMain, ...stop } = await focusedElement(page);
    if (!inMain) break;
    stops.push(stop);
  }
  return stops;
}
