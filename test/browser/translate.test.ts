import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeWav } from "../helpers/wav.ts";
import { speechPcm } from "../native/audio.ts";
import { concat, quiet } from "../node/live-helpers.ts";
import { launchChromium, screenshot, signedInPage, stackInfo, tabStops, tempDir } from "./chromium.ts";
import { decodeQr } from "./qr.ts";

/**
 * Translate and the rooms in Chromium, against the stack's node translating with Apertium (en↔es).
 * The fake capture device plays English speech (espeak-ng) in a loop; the synthetic model's words are
 * noise, so the tests check structure: finals with an original and a translation line, each marked
 * with its language, on the right sides.
 */

let browser: Browser;
let media: ReturnType<typeof tempDir>;

beforeAll(async () => {
  media = tempDir();
  const wav = path.join(media.dir, "mic.wav");
  const speech = await speechPcm("Good morning. Where is the train station, please?");
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

/** The select's option values, in order. */
const optionsOf = (select: Locator) =>
  select.evaluate((el: HTMLSelectElement) => Array.from(el.options, (option) => option.value));

/** Records, inside the page, the classes of every bubble or utterance each time the list changes. */
async function recordLines(page: Page, selector: string): Promise<void> {
  await page.evaluate((lines) => {
    const log: string[][] = [];
    (window as unknown as { lineLog: string[][] }).lineLog = log;
    new MutationObserver(() =>
      log.push(Array.from(document.querySelectorAll(lines), (el) => el.className)),
    ).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ["class"],
    });
  }, selector);
}
const lineLog = (page: Page) => page.evaluate(() => (window as unknown as { lineLog: string[][] }).lineLog);

/** The language tags of a final's two lines. */
async function finalLines(line: Locator) {
  return {
    original: await line.locator(".line-original .lang-tag").textContent(),
    originalText: (await line.locator(".line-original .line-text").textContent())?.trim() ?? "",
    translation: await line.locator(".line-translation .lang-tag").textContent(),
    translationText: (await line.locator(".line-translation .line-text").textContent())?.trim() ?? "",
  };
}

describe("translate on one device", () => {
  it("offers the deployment's languages, swaps them, and shows finals with their translation; a swap mid-session applies", async () => {
    const { context, page } = await signedInPage(browser);
    const socketUrls: string[] = [];
    page.on("websocket", (socket) => socketUrls.push(socket.url()));
    await page.goto(`${stackInfo().url}/translate`);
    const source = page.getByLabel("I speak");
    const target = page.getByLabel("Translate into");
    await source.waitFor();
    expect(await optionsOf(source)).toEqual(["en", "es"]);
    expect([await source.inputValue(), await target.inputValue()]).toEqual(["en", "es"]);
    await page.getByRole("button", { name: "Swap languages" }).click();
    expect([await source.inputValue(), await target.inputValue()]).toEqual(["es", "en"]);
    await page.getByRole("button", { name: "Swap languages" }).click();

    await recordLines(page, ".utterances .utterance");
    await page.getByRole("button", { name: "Start speaking" }).click();
    await page.getByText("Listening").waitFor({ timeout: 30_000 });
    const firstFinal = page.locator(".utterance.final").first();
    await firstFinal.waitFor({ timeout: 90_000 });
    const english = await finalLines(firstFinal);
    expect(english).toMatchObject({ original: "English", translation: "Spanish" });
    expect(english.originalText).not.toBe("");
    expect(english.translationText).not.toBe("");
    const log = await lineLog(page);
    const beforeFinal = log.slice(
      0,
      log.findIndex((classes) => classes.some((c) => c.includes("final"))),
    );
    expect(beforeFinal.some((classes) => classes.includes("utterance interim"))).toBe(true);
    await screenshot(page, "translate");

    // Swapped while speaking: the next utterances are heard as Spanish and translated into English.
    await page.getByRole("button", { name: "Swap languages" }).click();
    const spanish = page.locator(".utterance.final").filter({
      has: page.locator(".line-original .lang-tag", { hasText: "Spanish" }),
    });
    await spanish.first().waitFor({ timeout: 90_000 });
    expect(await finalLines(spanish.first())).toMatchObject({ original: "Spanish", translation: "English" });
    // the socket was opened with a short-lived token: the API key never went into a URL
    const single = socketUrls.filter((url) => new URL(url).pathname === "/api/v1/ws/single");
    expect(single).toHaveLength(1);
    expect(new URL(single[0] as string).searchParams.get("token")).toMatch(/^vxt1\./);
    expect(single[0]).not.toContain(stackInfo().key);

    await page.getByRole("button", { name: "Stop" }).click();
    await page.getByRole("button", { name: "Start speaking" }).waitFor({ timeout: 15_000 });
    const kept = await page.locator(".utterance.final").count();
    // The conversation and the language choice survive a reload.
    await page.reload();
    await page.locator(".utterance.final").first().waitFor();
    expect(await page.locator(".utterance.final").count()).toBe(kept);
    expect([await source.inputValue(), await target.inputValue()]).toEqual(["es", "en"]);
    await context.close();
  });
});

describe("rooms", () => {
  it("creates a room with a QR code of its join link; a phone joins without a key; both read the speaker's translated final", async () => {
    const host = await signedInPage(browser);
    const page = host.page;
    await page.goto(`${stackInfo().url}/translate`);
    await page.getByLabel("I speak").selectOption("en");
    await page.getByLabel("Translate into").selectOption("es");
    await page.getByRole("button", { name: "Create a room" }).click();
    const qr = page.getByRole("img", { name: "QR code of the join link" });
    await qr.waitFor();
    const joinUrl = await page.getByLabel("Join link", { exact: true }).inputValue();
    expect(joinUrl).toMatch(new RegExp(`^${stackInfo().url}/join/[0-9a-f-]{36}$`));
    expect(await decodeQr(page, qr)).toBe(joinUrl);
    expect((await qr.boundingBox())?.width).toBeGreaterThanOrEqual(250);
    await screenshot(page, "translate-room-created");

    await page.getByRole("link", { name: "Enter the room" }).click();
    expect(await page.getByLabel("Your language").inputValue()).toBe("en");
    await page.getByRole("button", { name: "Join the conversation" }).click();
    await page.getByText("You joined, speaking English.").waitFor();

    // The phone: no API key, a Spanish browser, a phone-sized screen.
    const phoneContext = await browser.newContext({
      locale: "es-ES",
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    const phone = await phoneContext.newPage();
    await phone.goto(joinUrl);
    const phoneLanguage = phone.getByLabel("Your language");
    await phoneLanguage.waitFor();
    expect(await phoneLanguage.inputValue()).toBe("es");
    await screenshot(phone, "room-join-phone");
    await phone.getByRole("button", { name: "Join the conversation" }).click();
    await phone.getByText("You joined, speaking Spanish.").waitFor();
    await page.getByText("Someone joined, speaking Spanish · 2 in the conversation").waitFor();
    await page.getByText("Your words are translated into Spanish.").waitFor();
    await phone.getByText("Your words are translated into English.").waitFor();
    await phone.getByText("Connected · 2 in the conversation").waitFor();
    expect(
      await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(0);

    await recordLines(page, ".bubbles .bubble");
    await recordLines(phone, ".bubbles .bubble");
    await page.getByRole("button", { name: "Tap to speak" }).click();
    const mine = page.locator(".bubble.mine.final").first();
    await mine.waitFor({ timeout: 90_000 });
    expect(await mine.locator(".bubble-who").textContent()).toBe("You · English");
    expect(await finalLines(mine)).toMatchObject({ original: "English", translation: "Spanish" });
    const theirs = phone.locator(".bubble.theirs.final").first();
    await theirs.waitFor({ timeout: 30_000 });
    expect(await theirs.locator(".bubble-who").textContent()).toBe("English speaker");
    const heard = await finalLines(theirs);
    expect(heard).toMatchObject({ original: "English", translation: "Spanish" });
    expect(heard.originalText).toBe((await finalLines(mine)).originalText);
    // Interims in grey on the speaker's side only; the phone saw finals alone.
    const speakerLog = await lineLog(page);
    expect(speakerLog.some((classes) => classes.includes("bubble mine interim"))).toBe(true);
    expect((await lineLog(phone)).flat().some((c) => c.includes("interim"))).toBe(false);
    const interimColor = await page.evaluate(() => {
      const probe = document.createElement("li");
      probe.className = "bubble mine interim";
      probe.innerHTML = '<p class="line"><span class="line-text">x</span></p>';
      document.querySelector(".bubbles")?.append(probe);
      const color = getComputedStyle(probe.querySelector(".line-text") as Element).color;
      probe.remove();
      return color;
    });
    expect(interimColor).not.toBe(
      await mine.locator(".line-original .line-text").evaluate((el) => getComputedStyle(el).color),
    );
    await page.getByRole("button", { name: "Stop speaking" }).click();
    await screenshot(page, "room-host");
    await screenshot(phone, "room-phone");

    // A reload drops the phone's socket; it comes back into the same place: no leave, no new join.
    const notices = await page.locator(".room-notice").count();
    await phone.reload();
    await phone.getByText("Connected · 2 in the conversation").waitFor({ timeout: 15_000 });
    await phone.locator(".bubble.theirs.final").first().waitFor();
    await page.waitForTimeout(1_000);
    expect(await page.locator(".room-notice").count()).toBe(notices);

    await phone.getByRole("button", { name: "Leave" }).click();
    await page.getByText("Someone left · 1 in the conversation").waitFor({ timeout: 15_000 });
    await phone.getByRole("button", { name: "Join again" }).waitFor();
    await phoneContext.close();

    // The host downloads the transcript from the translate page: both languages, as subtitles.
    const spoken = (await finalLines(mine)).originalText;
    await page.goto(`${stackInfo().url}/translate`);
    await page.getByLabel("Language of the transcript").selectOption({ label: "Original and Spanish" });
    const [srt] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download SRT" }).click(),
    ]);
    expect(srt.suggestedFilename()).toMatch(/^conversation-[0-9a-f]{8}\.srt$/);
    const text = await readFile((await srt.path()) as string, "utf8");
    expect(text).toMatch(/^1\n\d\d:\d\d:\d\d,\d{3} --> /);
    expect(text).toContain(`Speaker 1: ${spoken}`);
    await page.getByRole("button", { name: "Make a note of it" }).click();
    await page.getByRole("link", { name: "Note made: open it in Studio" }).waitFor();
    await host.context.close();
  });

  it("is reachable by keyboard with a visible focus ring, from the pair to the room's microphone", async () => {
    const { context, page } = await signedInPage(browser);
    await page.goto(`${stackInfo().url}/translate`);
    await page.getByLabel("I speak").waitFor();
    await page.getByRole("button", { name: "Create a room" }).click();
    await page.getByRole("link", { name: "Enter the room" }).waitFor();
    const stops = await tabStops(page);
    expect(stops.map((stop) => stop.label)).toEqual([
      "I speak",
      "Swap languages",
      "Translate into",
      "Start speaking",
      "Create another room",
      "Join link",
      "Copy",
      "Enter the room",
      "Language of the transcript",
      "Download TXT",
      "Download SRT",
      "Download VTT",
      "Download JSON",
      "Make a note of it",
    ]);
    for (const stop of stops) expect(stop.outline, stop.label).toBe("solid");
    await page.getByLabel("Swap languages").focus();
    await page.keyboard.press("Enter");
    expect(await page.getByLabel("I speak").inputValue()).toBe("es");
    await page.keyboard.press("Enter");

    await page.getByRole("link", { name: "Enter the room" }).focus();
    await page.keyboard.press("Enter");
    await page.getByLabel("Your language").waitFor();
    expect((await tabStops(page)).map((stop) => [stop.label, stop.outline])).toEqual([
      ["Your language", "solid"],
      ["Your name (shown to everyone)", "solid"],
      ["Speaker: I will talk", "solid"],
      ["Join the conversation", "solid"],
    ]);
    await page.getByRole("button", { name: "Join the conversation" }).focus();
    await page.keyboard.press("Enter");
    await page.getByText(/^Connected · \d+ in the conversation$/).waitFor();
    // This browser created the room: its host controls and the transcript follow the microphone.
    expect((await tabStops(page)).map((stop) => [stop.label, stop.outline])).toEqual(
      [
        "Tap to speak",
        "Leave",
        "Lock the room",
        "End the room for everyone",
        "Invite someone",
        "Language of the transcript",
        "Download TXT",
        "Download SRT",
        "Download VTT",
        "Download JSON",
        "Make a note of it",
      ].map((label) => [label, "solid"]),
    );
    await context.close();
  });

  it("shows a readable page for a conversation that ended or never existed, to anyone", async () => {
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    for (const id of [randomUUID(), "not-a-room"]) {
      await page.goto(`${stackInfo().url}/join/${id}`);
      await page
        .getByRole("heading", { name: "This conversation has ended or does not exist" })
        .waitFor({ timeout: 15_000 });
      expect(await page.getByLabel("API key").count()).toBe(0);
    }
    await screenshot(page, "room-ended");
    await page.getByLabel("Interface language").selectOption("vi");
    await page.getByRole("heading", { name: "Cuộc hội thoại này đã kết thúc hoặc không tồn tại" }).waitFor();
    await context.close();
  });
});
