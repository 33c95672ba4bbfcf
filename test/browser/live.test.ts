import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeWav } from "../helpers/wav.ts";
import { speechPcm } from "../native/audio.ts";
import { concat, quiet } from "../node/live-helpers.ts";
import { launchChromium, screenshot, signedInPage, stackInfo, tempDir } from "./chromium.ts";

/**
 * Live microphone in Chromium: its fake capture device plays a speech WAV (espeak-ng) in a loop, the
 * page's AudioWorklet turns it into PCM16 16 kHz frames for /ws, and the inference node's streaming
 * engine answers with interims and finals (noise words: the synthetic model has random weights).
 */

let browser: Browser;
let media: ReturnType<typeof tempDir>;

beforeAll(async () => {
  media = tempDir();
  const wav = path.join(media.dir, "mic.wav");
  const speech = await speechPcm("Hello from the browser. This is a live test of the microphone.");
  // Speech, then a pause long enough (> 600 ms) for the engine to close the utterance; Chromium loops it.
  writeWav(wav, concat(quiet(400), speech, quiet(1600)));
  browser = await launchChromium([
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
    `--use-file-for-fake-audio-capture=${wav}`,
    "--autoplay-policy=no-user-gesture-required",
  ]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  media?.remove();
});

/** Records, inside the page, each change of the live transcript: interim text and the number of finals. */
async function recordTranscript(page: Page): Promise<void> {
  await page.evaluate(() => {
    const log: { interims: number; finals: number; interimText: string; at: number }[] = [];
    (window as unknown as { liveLog: typeof log }).liveLog = log;
    const box = document.querySelector(".live-transcript");
    if (!box) throw new Error("no live transcript");
    new MutationObserver(() => {
      log.push({
        interims: box.querySelectorAll(".interim").length,
        finals: box.querySelectorAll(".final").length,
        interimText: box.querySelector(".interim")?.textContent ?? "",
        at: performance.now(),
      });
    }).observe(box, { subtree: true, childList: true, characterData: true });
  });
}

const liveLog = (page: Page) =>
  page.evaluate(
    () =>
      (window as unknown as { liveLog: { interims: number; finals: number; interimText: string }[] }).liveLog,
  );

describe("live microphone", () => {
  it("streams the microphone: level moves, interims in grey are replaced in place, then finals", async () => {
    const { context, page } = await signedInPage(browser);
    const socketUrls: string[] = [];
    page.on("websocket", (socket) => socketUrls.push(socket.url()));
    await page.goto(`${stackInfo().url}/live`);
    await page.getByRole("heading", { name: "Live", exact: true }).waitFor();
    await page.getByLabel("Spoken language").selectOption("en");
    await recordTranscript(page);
    await page.getByRole("button", { name: "Start" }).click();
    await page.getByText("Listening").waitFor({ timeout: 30_000 });
    await expect
      .poll(() => page.locator("#input-level").evaluate((m: HTMLMeterElement) => m.value))
      .toBeGreaterThan(0.2);

    await page.locator(".live-transcript .final").first().waitFor({ timeout: 60_000 });
    await page.locator(".live-transcript .final").nth(1).waitFor({ timeout: 60_000 });
    await screenshot(page, "live");
    // a long run-on word of the model's breaks inside the transcript: the page never scrolls sideways
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(0);
    // the socket was opened with a short-lived token: the API key never went into a URL
    expect(socketUrls).toHaveLength(1);
    expect(new URL(socketUrls[0] as string).searchParams.get("token")).toMatch(/^vxt1\./);
    expect(socketUrls[0]).not.toContain(stackInfo().key);
    const log = await liveLog(page);
    // Interims came before the first final, and there was never more than one interim line.
    const firstFinal = log.findIndex((entry) => entry.finals > 0);
    expect(log.slice(0, firstFinal).some((entry) => entry.interims === 1 && entry.interimText !== "")).toBe(
      true,
    );
    expect(Math.max(...log.map((entry) => entry.interims))).toBe(1);
    const interimColor = await page.evaluate(() => {
      const probe = document.createElement("p");
      probe.className = "interim";
      document.querySelector(".live-transcript")?.append(probe);
      const color = getComputedStyle(probe).color;
      probe.remove();
      return color;
    });
    const finalColor = await page
      .locator(".live-transcript .final")
      .first()
      .evaluate((p) => getComputedStyle(p).color);
    expect(interimColor).not.toBe(finalColor);

    await page.getByRole("button", { name: "Stop" }).click();
    await page.getByRole("button", { name: "Start" }).waitFor({ timeout: 15_000 });
    expect(await page.getByRole("alert").count()).toBe(0);
    await expect.poll(async () => (await (await fetch(`${stackInfo().url}/health`)).json()).busy).toBe(false);
    await context.close();
  });

  it("shows clearly when the one live session is taken: /health busy, and the 1013 refusal", async () => {
    const { context, page } = await signedInPage(browser);
    await page.goto(`${stackInfo().url}/live`);
    await page.getByRole("button", { name: "Start" }).click();
    await page.getByText("Listening").waitFor({ timeout: 30_000 });

    const other = await context.newPage();
    await other.goto(`${stackInfo().url}/live`);
    await other.getByText("Busy: another live session is in progress").waitFor({ timeout: 10_000 });
    await other.getByRole("button", { name: "Start" }).click();
    const refusal = other.getByRole("alert");
    await refusal.waitFor({ timeout: 15_000 });
    expect(await refusal.textContent()).toMatch(/^Refused: another live session is in progress/);
    await screenshot(other, "live-busy");

    await page.getByRole("button", { name: "Stop" }).click();
    await page.getByRole("button", { name: "Start" }).waitFor({ timeout: 15_000 });
    await other
      .getByText("Busy: another live session is in progress")
      .waitFor({ state: "detached", timeout: 10_000 });
    await context.close();
  });
});
