import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { synthesize, VOICES } from "../helpers/dialogue.ts";
import { writeWav } from "../helpers/wav.ts";
import { launchChromium, screenshot, signedInPage, stackInfo, tempDir } from "./chromium.ts";

/**
 * The Speakers page in Chromium: a voice enrolled from a recording (a file of one person speaking, or a
 * take from the microphone), listed with its length, kept on the list when an older read of the list
 * answers late, and deleted after a confirming press; the API agrees at each step.
 */

let browser: Browser;
let media: ReturnType<typeof tempDir>;
let voiceWav: string;

beforeAll(async () => {
  media = tempDir();
  voiceWav = path.join(media.dir, "bao.wav");
  const speech = await synthesize(
    "Good morning, thanks for joining the call today. I wanted to go over the quarterly numbers before the board meeting.",
    VOICES[1]!,
  );
  writeWav(voiceWav, speech);
  // the fake microphone plays the same voice in a loop
  browser = await launchChromium([
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
    `--use-file-for-fake-audio-capture=${voiceWav}`,
  ]);
});

afterAll(async () => {
  await browser?.close();
  media?.remove();
});

interface Enrolled {
  id: string;
  name: string;
  duration_sec: number | null;
}

async function enrolledNames(): Promise<Enrolled[]> {
  const response = await fetch(`${stackInfo().url}/v1/speakers`, {
    headers: { authorization: `Bearer ${stackInfo().key}` },
  });
  return ((await response.json()) as { data: Enrolled[] }).data;
}

describe("speakers page", () => {
  it("enrols a voice from a recording, keeps it listed when an older read answers late, deletes it", async () => {
    const { context, page } = await signedInPage(browser);
    // the list read on load answers only after the enrolment's own read of the list
    let answerFirst = () => {};
    const firstHeld = new Promise<void>((resolve) => {
      answerFirst = resolve;
    });
    let reads = 0;
    await page.route(
      (url) => url.pathname === "/v1/speakers",
      async (route) => {
        if (route.request().method() !== "GET" || ++reads > 1) return route.fallback();
        const response = await route.fetch();
        await firstHeld;
        await route.fulfill({ response });
      },
    );
    await page.goto(`${stackInfo().url}/speakers`);
    await page.getByRole("heading", { name: "Speakers", exact: true }).waitFor();
    await page.getByLabel("Name").fill("Bao");
    await page.getByLabel("Recording of the voice").setInputFiles(voiceWav);
    await page.getByRole("button", { name: "Enrol", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Bao is enrolled." }).waitFor({ timeout: 30_000 });
    const bao = page.locator("li").filter({ has: page.getByText("Bao", { exact: true }) });
    await bao.waitFor();
    // the form is ready for the next voice: no name, no file chosen
    expect(await page.getByLabel("Name").inputValue()).toBe("");
    expect(await page.getByLabel("Recording of the voice").inputValue()).toBe("");
    expect((await enrolledNames()).map((speaker) => speaker.name)).toContain("Bao");

    const lateAnswer = page.waitForResponse(
      (response) =>
        new URL(response.url()).pathname === "/v1/speakers" && response.request().method() === "GET",
    );
    answerFirst();
    await lateAnswer;
    // what the page does with the late answer happens within a task or two of its arrival
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
    expect(await bao.isVisible()).toBe(true);
    await screenshot(page, "speakers-enrolled");

    await bao.getByRole("button", { name: "Delete this speaker" }).click();
    await bao.getByRole("button", { name: "Press again to delete for good" }).click();
    await bao.waitFor({ state: "detached" });
    expect((await enrolledNames()).map((speaker) => speaker.name)).not.toContain("Bao");
    await context.close();
  });

  it("records a voice with the microphone and enrols it; a take under 2 s is refused in words", async () => {
    const { context, page } = await signedInPage(browser);
    await page.goto(`${stackInfo().url}/speakers`);
    await page.getByLabel("Name").fill("Chi");

    await page.getByRole("button", { name: "Record with the microphone" }).click();
    await page.getByRole("button", { name: /^Stop recording/ }).click();
    await page.getByRole("alert").filter({ hasText: "That take was shorter than 2 seconds" }).waitFor();

    await page.getByRole("button", { name: "Record with the microphone" }).click();
    await page.getByRole("button", { name: "Stop recording (0:03)" }).click({ timeout: 30_000 });
    await page.getByRole("status").filter({ hasText: "Recorded 0:03 from the microphone" }).waitFor();
    // the take plays back in the page, as long as it was recorded
    const take = page.getByLabel("The recorded take");
    await expect
      .poll(() => take.evaluate((audio: HTMLAudioElement) => audio.duration))
      .toBeGreaterThanOrEqual(3);
    expect(await take.evaluate((audio: HTMLAudioElement) => audio.duration)).toBeLessThan(4.5);
    await screenshot(page, "speakers-recorded");
    await page.getByRole("button", { name: "Enrol", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Chi is enrolled." }).waitFor({ timeout: 30_000 });
    await page
      .locator("li")
      .filter({ has: page.getByText("Chi", { exact: true }) })
      .waitFor();
    const chi = (await enrolledNames()).find((speaker) => speaker.name === "Chi");
    // the take's length as the API measured the clip: 3 s and the part of a second before the press
    expect(chi?.duration_sec).toBeGreaterThanOrEqual(3);
    expect(chi?.duration_sec).toBeLessThan(4.5);
    await fetch(`${stackInfo().url}/v1/speakers/${chi?.id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${stackInfo().key}` },
    });
    await context.close();
  });
});
