import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, screenshot, signedInPage, stackInfo } from "./chromium.ts";
import {
  FLASHCARDS,
  GUIDE_MARKDOWN,
  MINDMAP,
  PODCAST,
  QUESTIONS,
  RECORDED_NOTE_TITLE,
  STUDY_GUIDE,
  silentWav,
  translationResult,
  VIDEO_OVERVIEW,
} from "./studio-results.ts";

/**
 * The task cards of the studio's newer kinds in Chromium, each fed a SUCCESS result of its kind's shape
 * (studio-results.ts) in place of the API's answer: the kind's preview (flip cards, a quiz to try, the
 * mind map's picture, the study guide's text, a podcast's chapters, a video's captions track, the
 * translation's new note) and its downloads, named for people, in English and Vietnamese.
 */

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

const TASKS = [
  { task_id: "rec-flashcards", kind: "flashcards", result: FLASHCARDS },
  { task_id: "rec-questions", kind: "questions", result: QUESTIONS },
  { task_id: "rec-mindmap", kind: "mindmap", result: MINDMAP },
  { task_id: "rec-guide", kind: "study_guide", result: STUDY_GUIDE },
  { task_id: "rec-podcast", kind: "podcast", result: PODCAST },
  { task_id: "rec-overview", kind: "video_overview", result: VIDEO_OVERVIEW },
] as const;

/** A 1×1 PNG: the mind map's picture. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
  "base64",
);
const WAV = silentWav();

/** A 206 answer of the part of `body` a single-range `Range` header asks for (the whole file without one). */
function byteRange(body: Buffer, range: string | undefined) {
  const [, from, to] = /^bytes=(\d+)-(\d*)$/.exec(range ?? "") ?? [];
  const start = Number(from ?? 0);
  const end = to ? Math.min(Number(to), body.length - 1) : body.length - 1;
  return {
    status: 206,
    contentType: "audio/wav",
    headers: { "accept-ranges": "bytes", "content-range": `bytes ${start}-${end}/${body.length}` },
    body: body.subarray(start, end + 1),
  };
}

/**
 * A signed-in page whose studio lists `tasks` as started here, their results served as recorded, and
 * the recorded files under /recorded/.
 */
async function studioWithRecordedTasks(
  tasks: readonly { task_id: string; kind: string; result: unknown }[],
  lang: "en" | "vi" = "en",
): Promise<{ page: Page; close: () => Promise<void> }> {
  const { context, page } = await signedInPage(browser);
  const stored = tasks.map(({ task_id, kind }, i) => ({
    task_id,
    kind,
    note_title: RECORDED_NOTE_TITLE,
    created_at: 1_700_000_000_000 - i,
  }));
  await context.addInitScript(
    ({ stored, lang }) => {
      localStorage.setItem("voxedge.studio.tasks", JSON.stringify(stored));
      localStorage.setItem("voxedge.lang", lang);
    },
    { stored, lang },
  );
  const results = new Map(tasks.map((task) => [task.task_id, task.result]));
  await page.route("**/v1/create/tasks/*/result", async (route) => {
    const taskId = new URL(route.request().url()).pathname.split("/").at(-2) ?? "";
    const result = results.get(taskId);
    if (!result) return route.fallback();
    await route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(result) });
  });
  await page.route("**/recorded/**", async (route) => {
    const name = new URL(route.request().url()).pathname.split("/").pop() ?? "";
    if (name.endsWith(".png")) return route.fulfill({ status: 200, contentType: "image/png", body: PNG });
    if (name.endsWith(".md"))
      return route.fulfill({ status: 200, contentType: "text/markdown", body: GUIDE_MARKDOWN });
    // Ranges, as /media serves them: a player seeks only in a file served with them.
    if (name.endsWith(".wav")) return route.fulfill(byteRange(WAV, route.request().headers().range));
    if (name.endsWith(".vtt"))
      return route.fulfill({
        status: 200,
        contentType: "text/vtt",
        body: "WEBVTT\n\n00:00.000 --> 00:02.000\nThe Mekong\n",
      });
    return route.fulfill({ status: 200, contentType: "application/octet-stream", body: "recorded" });
  });
  await page.goto(`${stackInfo().url}/studio`);
  return { page, close: () => context.close() };
}

/** The card of a kind (by its name in the UI) made of the recorded note. */
const card = (page: Page, kindName: string) =>
  page.getByRole("article", { name: `${kindName}: ${RECORDED_NOTE_TITLE}` });

/** The names and download file names of a card's downloads list. */
async function downloadsOf(page: Page, kindName: string, label = "Downloads") {
  const links = card(page, kindName).getByRole("navigation", { name: label }).getByRole("link");
  await links.first().waitFor();
  return links.evaluateAll((anchors) =>
    anchors.map((a) => [a.textContent, a.getAttribute("download"), a.getAttribute("href")]),
  );
}

describe("studio cards of the newer kinds (recorded results)", () => {
  it("shows each kind's preview and every file of data.files to download", async () => {
    const { page, close } = await studioWithRecordedTasks(TASKS);

    // Flash cards: the front, a press turns it to the back.
    const cards = card(page, "Flash cards");
    const first = cards.getByRole("button", { name: /How long is the Mekong\?/ });
    await first.click();
    await cards.getByRole("button", { name: /About 4,350 kilometres/, pressed: true }).waitFor();
    expect(await cards.getByRole("button", { name: /What keeps the delta fertile\?/ }).count()).toBe(1);
    expect(await downloadsOf(page, "Flash cards")).toEqual([
      ["Anki deck (.apkg)", "The-Mekong-River.apkg", FLASHCARDS.data.files[0]?.url],
      ["Spreadsheet (CSV)", "The-Mekong-River.csv", FLASHCARDS.data.files[1]?.url],
      ["Data (JSON)", "The-Mekong-River.json", FLASHCARDS.data.files[2]?.url],
    ]);

    // The quiz: a wrong pick says so, with the right answer and why; the options are then closed.
    const quiz = card(page, "Quiz questions");
    await quiz.getByRole("button", { name: "B. Four" }).click();
    await quiz
      .getByRole("status")
      .filter({ hasText: "Not quite: the answer is C. Six. From the Tibetan Plateau" })
      .waitFor();
    expect(await quiz.getByRole("button", { name: "C. Six" }).isDisabled()).toBe(true);
    expect((await downloadsOf(page, "Quiz questions")).map(([name]) => name)).toEqual([
      "Moodle XML",
      "Moodle GIFT",
      "PDF",
    ]);

    // The mind map's picture, loaded.
    const map = card(page, "Mind map").getByRole("img", { name: "Mind map of “The Mekong River”" });
    await expect.poll(() => map.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);
    expect((await downloadsOf(page, "Mind map")).map(([name]) => name)).toEqual([
      "Picture (PNG)",
      "Picture (SVG)",
      "Outline (OPML)",
    ]);

    // The study guide as headings, a list and text; its HTML shows as text and runs nothing.
    const guide = card(page, "Study guide").getByRole("article", { name: "Study guide" });
    await guide.getByRole("heading", { name: "Study guide: the Mekong" }).waitFor();
    await guide.getByRole("heading", { name: "Key terms" }).waitFor();
    await guide.getByText("<script>window.injected = true</script>").waitFor();
    await guide.getByText('<img src=x onerror="window.injected=true">Sediment').waitFor();
    expect(
      await guide.locator("script, img, strong").evaluateAll((els) => els.map((e) => e.tagName)),
    ).toEqual(["STRONG", "STRONG"]);
    expect(await page.evaluate(() => (window as { injected?: boolean }).injected)).toBeUndefined();

    // The podcast: a chapter's button plays from where it starts.
    const podcast = card(page, "Podcast");
    const audio = podcast.locator("audio");
    await expect
      .poll(() => audio.evaluate((el: HTMLAudioElement) => el.readyState))
      .toBeGreaterThanOrEqual(1);
    await audio.evaluate((el: HTMLAudioElement) => {
      el.muted = true;
    });
    await podcast
      .getByRole("navigation", { name: "Chapters" })
      .getByRole("button", { name: /0:42\s+Threats/ })
      .click();
    await expect
      .poll(() => audio.evaluate((el: HTMLAudioElement) => el.currentTime))
      .toBeGreaterThanOrEqual(42);
    expect((await downloadsOf(page, "Podcast")).map(([name]) => name)).toEqual([
      "Audio (M4A)",
      "Audio (MP3)",
      "Data (JSON)",
      "Plain text (.txt)",
    ]);

    // The video overview: its WebVTT file is the player's captions track.
    const overview = card(page, "Video overview");
    const track = overview.locator("video track");
    expect(await track.getAttribute("kind")).toBe("captions");
    expect(await track.getAttribute("src")).toBe(VIDEO_OVERVIEW.data.files[2]?.url);
    expect(await track.getAttribute("srclang")).toBe("en");
    expect((await downloadsOf(page, "Video overview")).map(([name]) => name)).toEqual([
      "Video (MP4)",
      "Subtitles (SRT)",
      "Subtitles (WebVTT)",
      "PDF",
    ]);
    await screenshot(page, "studio-kinds");
    await close();
  });

  it("names the downloads and the previews in Vietnamese", async () => {
    const { page, close } = await studioWithRecordedTasks(TASKS.slice(0, 2), "vi");
    expect((await downloadsOf(page, "Thẻ ghi nhớ", "Tải xuống")).map(([name]) => name)).toEqual([
      "Bộ thẻ Anki (.apkg)",
      "Bảng tính (CSV)",
      "Dữ liệu (JSON)",
    ]);
    const quiz = card(page, "Câu hỏi trắc nghiệm");
    await quiz.getByRole("button", { name: "C. Six" }).click();
    await quiz.getByRole("status").filter({ hasText: "Chính xác!" }).waitFor();
    await close();
  });

  it("refreshes the note list with a translation's new note and opens it", async () => {
    const { url, key } = stackInfo();
    const title = `Sông Mê Kông ${Date.now()}`;
    // The result answers only once the page has read its note list, and names a note made after that:
    // the list has it only if the card's result makes the page read it again.
    let listed: () => void = () => undefined;
    const listRead = new Promise<void>((resolve) => {
      listed = resolve;
    });
    const { context, page } = await signedInPage(browser);
    page.on("response", (response) => {
      if (new URL(response.url()).pathname === "/v1/notes") listed();
    });
    await context.addInitScript(() => {
      localStorage.setItem(
        "voxedge.studio.tasks",
        JSON.stringify([
          { task_id: "rec-translation", kind: "translation", note_title: "The Mekong River", created_at: 1 },
        ]),
      );
    });
    await page.route("**/v1/create/tasks/rec-translation/result", async (route) => {
      await listRead;
      const created = await fetch(`${url}/v1/notes`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          title,
          content: "Sông Mê Kông là một trong những con sông dài nhất châu Á.",
          language: "vi",
        }),
      });
      const { note_id } = (await created.json()) as { note_id: string };
      await route.fulfill({
        status: 200,
        contentType: "application/json",
        body: JSON.stringify(translationResult(note_id)),
      });
    });
    await page.goto(`${url}/studio`);
    const note = page.locator(".notes .note-item").filter({ hasText: title });
    await note.waitFor();
    await page
      .getByRole("article", { name: "Translated note: The Mekong River" })
      .getByRole("button", { name: "Open the new note" })
      .click();
    await note.getByRole("button", { name: "In use" }).waitFor();
    await page.getByText(`From the note “${title}”.`).waitFor();
    await context.close();
  });
});
