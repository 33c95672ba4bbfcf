import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, screenshot, signedInPage, stackInfo } from "./chromium.ts";

/**
 * The studio's newer kinds end to end in Chromium: each made through the kind table's form from a saved
 * note, rendered by the stack's node, and followed on its card to its preview and downloads: flash
 * cards, mind maps, quizzes, study guides, podcasts, video overviews, and shorts' aspect with caption
 * files. A note translation is not among them: this stack's translator (Apertium) has no English ↔
 * Vietnamese pair; its card is checked from a recorded result (studio-kinds.test.ts) and the kind end to
 * end with a LibreTranslate-compatible server (test/worker, test/node).
 */

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium(["--autoplay-policy=no-user-gesture-required"]);
});

afterAll(async () => {
  await browser?.close();
});

const NOTE = `# The Mekong River
The Mekong is one of the longest rivers in Asia. It flows about 4,350 kilometres through six countries, from the Tibetan Plateau to the South China Sea.
Around 60 million people depend on the river for food, water and transport.

# Ecology
The Mekong has more fish species than any river except the Amazon. The giant catfish can weigh 300 kilograms.
Floods every monsoon season bring sediment that keeps the delta fertile. Rice farmers in Vietnam rely on this cycle.

# Threats
Dams in China and Laos hold back sediment and block fish migration. Sea level rise pushes salt water into the delta.
Scientists warn that the delta could shrink by half before 2100.`;

/** A studio page with a new English note of `title` saved and chosen for the create form. */
async function studioWithNote(title: string): Promise<{ page: Page; close: () => Promise<void> }> {
  const { context, page } = await signedInPage(browser);
  await page.goto(`${stackInfo().url}/studio`);
  await page.getByLabel("Title (optional)").fill(title);
  await page.getByLabel("Language", { exact: true }).selectOption("en");
  await page.getByLabel("Text", { exact: true }).fill(NOTE);
  await page.getByRole("button", { name: "Save note" }).click();
  await page.getByText(`From the note “${title}”.`).waitFor();
  return { page, close: () => context.close() };
}

/** Makes `kind` (its name in the form) with the form's defaults after `fill`, and waits for its card's downloads. */
async function make(
  page: Page,
  kind: string,
  button: string,
  title: string,
  fill: () => Promise<void> = async () => undefined,
): Promise<{ card: Locator; downloads: string[] }> {
  await page.getByRole("radio", { name: kind, exact: true }).check();
  await fill();
  await page.getByRole("button", { name: button }).click();
  const card = page.getByRole("article", { name: `${kind}: ${title}` });
  const links = card.getByRole("navigation", { name: "Downloads" }).getByRole("link");
  await links.first().waitFor({ timeout: 240_000 });
  for (const link of await links.all()) {
    const href = (await link.getAttribute("href")) ?? "";
    expect((await fetch(new URL(href, stackInfo().url))).status, href).toBe(200);
  }
  return { card, downloads: await links.allTextContents() };
}

describe("studio: the newer kinds end to end", () => {
  it("flash cards flip, a quiz answers, a mind map and a study guide show", async () => {
    const title = "Mekong study";
    const { page, close } = await studioWithNote(title);

    const flashcards = await make(page, "Flash cards", "Make the flash cards", title, () =>
      page.getByLabel("Number of cards (1–50)").fill("4"),
    );
    expect(flashcards.downloads).toEqual(
      expect.arrayContaining(["Anki deck (.apkg)", "Spreadsheet (CSV)", "Data (JSON)"]),
    );
    const first = flashcards.card.locator(".flashcard").first();
    await first.click();
    expect(await first.getAttribute("aria-pressed")).toBe("true");

    const quiz = await make(page, "Quiz questions", "Make the quiz", title, () =>
      page.getByLabel("Number of questions (1–20)").fill("3"),
    );
    expect(quiz.downloads).toEqual(expect.arrayContaining(["Moodle XML", "Moodle GIFT", "PDF"]));
    await quiz.card.locator(".quiz-option").first().click();
    await quiz.card.getByRole("status").first().waitFor();

    const map = await make(page, "Mind map", "Make the mind map", title);
    expect(map.downloads).toEqual(
      expect.arrayContaining(["Picture (PNG)", "Picture (SVG)", "Outline (OPML)"]),
    );
    await expect
      .poll(() => map.card.locator("img.result-image").evaluate((img: HTMLImageElement) => img.naturalWidth))
      .toBeGreaterThan(0);

    const guide = await make(page, "Study guide", "Make the study guide", title);
    expect(guide.downloads).toEqual(expect.arrayContaining(["Markdown (.md)", "PDF"]));
    await guide.card.getByRole("article", { name: "Study guide" }).getByRole("heading").first().waitFor();
    await screenshot(page, "studio-new-kinds");
    await close();
  });

  it("a podcast seeks by chapter; a video overview and a landscape short carry captions tracks", async () => {
    const title = "Mekong listening";
    const { page, close } = await studioWithNote(title);

    const podcast = await make(page, "Podcast", "Make the podcast", title, async () => {
      await page.getByLabel("Length", { exact: true }).selectOption("short");
    });
    expect(podcast.downloads).toEqual(
      expect.arrayContaining(["Audio (M4A)", "Audio (MP3)", "Plain text (.txt)"]),
    );
    const chapters = podcast.card.getByRole("navigation", { name: "Chapters" }).getByRole("button");
    expect(await chapters.count()).toBeGreaterThan(0);

    const overview = await make(page, "Video overview", "Make the video overview", title);
    expect(overview.downloads).toEqual(
      expect.arrayContaining(["Video (MP4)", "Subtitles (SRT)", "Subtitles (WebVTT)", "PDF"]),
    );
    expect(await overview.card.locator("video track").getAttribute("kind")).toBe("captions");

    const short = await make(page, "Short video", "Make the short", title, async () => {
      await page.getByLabel("Length in seconds (5–180)").fill("6");
      await page.getByLabel("Shape").selectOption("16:9");
    });
    expect(short.downloads).toEqual(
      expect.arrayContaining(["Video (MP4)", "Subtitles (SRT)", "Subtitles (WebVTT)"]),
    );
    const video = short.card.locator("video");
    await expect
      .poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 30_000 })
      .toBeGreaterThan(0);
    expect(await video.evaluate((v: HTMLVideoElement) => v.videoWidth > v.videoHeight)).toBe(true);
    await close();
  }, 600_000);
});
