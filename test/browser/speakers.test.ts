import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { synthesize, VOICES } from "../helpers/dialogue.ts";
import { writeWav } from "../helpers/wav.ts";
import { launchChromium, screenshot, signedInPage, stackInfo, tempDir } from "./chromium.ts";

/**
 * The Speakers page in Chromium: a voice enrolled from a recording (a file of one person speaking),
 * listed with its length, kept on the list when an older read of the list answers late, and deleted
 * after a confirming press; the API agrees at each step.
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
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  media?.remove();
});

async function enrolledNames(): Promise<{ id: string; name: string }[]> {
  const response = await fetch(`${stackInfo().url}/v1/speakers`, {
    headers: { authorization: `Bearer ${stackInfo().key}` },
  });
  return ((await response.json()) as { data: { id: string; name: string }[] }).data;
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
});
