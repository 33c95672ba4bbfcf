import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, screenshot, signedInPage, stackInfo, tabStops } from "./chromium.ts";

/**
 * Studio in Chromium: notes, then a slide deck and a short made through the kind table's form and
 * rendered by the stack's node with the real espeak-ng and ffmpeg, followed on their task cards to the
 * result (player, the downloads of data.files, PDF preview);
 * refusals and failures worded by their error_key.
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

/** What a task card's status line may say: waiting, working (no step reported yet) or a step of protocol/content.ts CONTENT_STEPS, done. */
const KNOWN_STATUS =
  /^(Waiting in line|Working…|Writing the script|Writing the questions|Translating|Recording the narration|Rendering the video|Rendering the audio|Building the slides|Uploading|Done( · \d+:\d\d)?)$/;

/** Records, inside the page, each new text of the task cards' status lines. */
async function recordTaskStates(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen = { statuses: [] as string[] };
    const last = new Map<Element, string>();
    (window as unknown as { taskLog: typeof seen }).taskLog = seen;
    new MutationObserver(() => {
      for (const card of document.querySelectorAll(".task-card")) {
        const text = card.querySelector(".status")?.textContent ?? "";
        if (text && last.get(card) !== text) seen.statuses.push(text);
        last.set(card, text);
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}
const taskLog = (page: Page) =>
  page.evaluate(() => (window as unknown as { taskLog: { statuses: string[] } }).taskLog);

/** Fetches a link the page shows, as a browser element would (no API key). */
async function fetchLink(link: Locator): Promise<Response> {
  const href = await link.getAttribute("href");
  if (!href) throw new Error("link without href");
  return fetch(new URL(href, stackInfo().url));
}

describe("studio", () => {
  it("is reachable by keyboard with a visible focus ring, catalogs included", async () => {
    const { context, page } = await signedInPage(browser);
    await page.goto(`${stackInfo().url}/studio`);
    await page
      .getByRole("button", { name: /^Play a sample of / })
      .first()
      .waitFor();
    const stops = await tabStops(page);
    for (const stop of stops) expect(stop.outline, stop.label).toBe("solid");
    expect(stops.map((stop) => stop.label)).toEqual(
      expect.arrayContaining([
        "Write or paste",
        "Title (optional)",
        "Language",
        "Text",
        "Short video",
        "Play a sample of Ethan (English, male)",
        "Play a sample of Lan (Vietnamese, female)",
        "Aurora (slow blue-violet gradient)",
        "Length in seconds (5–180)",
      ]),
    );
    await context.close();
  });

  it("names the catalog's voices, backgrounds and templates in Vietnamese in a Vietnamese console", async () => {
    const { context, page } = await signedInPage(browser);
    await context.addInitScript(() => localStorage.setItem("voxedge.lang", "vi"));
    await page.goto(`${stackInfo().url}/studio`);
    await page.getByRole("radio", { name: "Minh (tiếng Việt, nam)" }).waitFor();
    expect(await page.getByRole("button", { name: "Nghe thử giọng Lan (tiếng Việt, nữ)" }).count()).toBe(1);
    expect(await page.getByRole("radio", { name: "Cực quang (chuyển màu xanh tím chậm)" }).count()).toBe(1);
    expect(await page.getByText("(Vietnamese, male)").count()).toBe(0);
    await context.close();
  });

  it("keeps a note saved before the list of notes arrived: listed, counted and chosen", async () => {
    const { context, page } = await signedInPage(browser);
    // the first page of notes, read on load before the note exists, arrives only after the note is saved
    let answerList = () => {};
    const listHeld = new Promise<void>((resolve) => {
      answerList = resolve;
    });
    await page.route(
      (url) => url.pathname === "/v1/notes",
      async (route) => {
        if (route.request().method() !== "GET") return route.fallback();
        const response = await route.fetch();
        await listHeld;
        await route.fulfill({ response });
      },
    );
    await page.goto(`${stackInfo().url}/studio`);
    await page.getByLabel("Title (optional)").fill("Saved before the list");
    await page.getByLabel("Text", { exact: true }).fill("Rice terraces hold water on steep hillsides.");
    await page.getByRole("button", { name: "Save note" }).click();
    await page.getByText("From the note “Saved before the list”.").waitFor();
    const { notes, total } = await (
      await fetch(`${stackInfo().url}/v1/notes?limit=1&skip=0`, {
        headers: { authorization: `Bearer ${stackInfo().key}` },
      })
    ).json();
    const listed = page.getByRole("region", { name: "Your notes" });
    const count = listed.locator("[aria-live]");
    answerList();
    await count.filter({ hasText: new RegExp(`^${total} in all$`) }).waitFor();
    await listed
      .locator(".note-item")
      .filter({ has: page.getByRole("heading", { name: "Saved before the list", exact: true }) })
      .getByRole("button", { name: "In use" })
      .waitFor();
    await page.getByText("From the note “Saved before the list”.").waitFor();
    expect(notes[0].title).toBe("Saved before the list");
    await context.close();
  });

  it("makes a note, then a deck and a short to their results; refusals are worded by error_key", async () => {
    const { context, page } = await signedInPage(browser);
    await page.goto(`${stackInfo().url}/studio`);
    await page.getByRole("heading", { name: "Studio", exact: true }).waitFor();

    // A transcription id that is not one of this key's: refused, in words.
    await page.getByRole("radio", { name: "From a transcription" }).check();
    await page.getByLabel("or its task id").fill("no-such-transcription");
    await page.getByRole("button", { name: "Make a note" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: "No finished transcription of this API key has that id." })
      .waitFor();

    // A written note; the draft survives a reload until it is saved.
    await page.getByRole("radio", { name: "Write or paste" }).check();
    await page.getByLabel("Title (optional)").fill("The Mekong River");
    await page.getByLabel("Language", { exact: true }).selectOption("en");
    await page.getByLabel("Text", { exact: true }).fill(NOTE);
    await page.reload();
    expect(await page.getByLabel("Text", { exact: true }).inputValue()).toBe(NOTE);
    await page.getByRole("button", { name: "Save note" }).click();
    const note = page
      .locator(".note-item")
      .filter({ has: page.getByRole("heading", { name: "The Mekong River", exact: true }) });
    await note.getByRole("button", { name: "In use" }).waitFor();
    expect(await page.getByLabel("Text", { exact: true }).inputValue()).toBe("");
    await page.getByText("From the note “The Mekong River”.").waitFor();
    await note.getByRole("button", { name: "Open" }).click();
    await note.getByText("Scientists warn that the delta could shrink by half before 2100.").waitFor();

    await recordTaskStates(page);
    // A slide count the API refuses, then the default range.
    await page.getByRole("radio", { name: "Slide deck" }).check();
    await page.getByRole("radio", { name: "Clean (white, blue accent)" }).waitFor({ state: "attached" });
    await page.getByLabel("Number of slides").fill("9-3");
    await page.getByRole("button", { name: "Make the deck" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: "The number of slides must be a range such as 5-8" })
      .waitFor();
    await page.getByLabel("Number of slides").fill("5-8");
    await page.getByRole("button", { name: "Make the deck" }).click();
    const deck = page.getByRole("article", { name: "Slide deck: The Mekong River" });
    const downloads = deck.getByRole("navigation", { name: "Downloads" });
    const pptx = downloads.getByRole("link", { name: "PowerPoint (.pptx)" });
    await pptx.waitFor({ timeout: 120_000 });
    const pdf = downloads.getByRole("link", { name: "PDF", exact: true });
    // The downloads are the result's data.files, one link each, in its order.
    const { files } = await taskResultData(await studioTaskId(page, "slide"));
    expect(files.map((file) => file.role)).toEqual(["pptx", "pdf"]);
    expect(await downloads.getByRole("link").allTextContents()).toEqual(["PowerPoint (.pptx)", "PDF"]);
    expect(await pptx.getAttribute("download")).toBe("The-Mekong-River.pptx");
    const pdfResponse = await fetchLink(pdf);
    expect(pdfResponse.status).toBe(200);
    expect(pdfResponse.headers.get("content-type")).toBe("application/pdf");
    expect(
      Buffer.from(await pdfResponse.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe("%PDF-");
    expect((await fetchLink(pptx)).status).toBe(200);
    // The download is an attachment; the preview frames the same file asking for it inline.
    expect(pdfResponse.headers.get("content-disposition")).toMatch(/^attachment; filename=/);
    const preview = new URL((await deck.getByTitle("Slide deck preview (PDF)").getAttribute("src")) ?? "");
    expect(preview.searchParams.get("disposition")).toBe("inline");
    preview.searchParams.delete("disposition");
    expect(preview.href).toBe(await pdf.getAttribute("href"));

    // A short of 8 s with a voice heard first: its sample plays from the catalog's public file.
    await page.getByRole("radio", { name: "Short video" }).check();
    const voice = "Emma (English, female)";
    await expect
      .poll(async () => (await fetch(await sampleUrl(voice))).status, { timeout: 60_000 })
      .toBe(200);
    await page.getByRole("button", { name: `Play a sample of ${voice}` }).click();
    await page.getByRole("button", { name: `Stop the sample of ${voice}` }).waitFor();
    await page.getByRole("radio", { name: voice }).check();
    await page.getByRole("radio", { name: "Ocean (teal radial glow)" }).check();
    await page.getByLabel("Length in seconds (5–180)").fill("8");
    await page.getByRole("button", { name: "Make the short" }).click();
    const short = page.getByRole("article", { name: "Short video: The Mekong River" });
    const video = short.locator("video");
    await video.waitFor({ timeout: 150_000 });
    await expect
      .poll(() => video.evaluate((element: HTMLVideoElement) => element.readyState), { timeout: 30_000 })
      .toBeGreaterThanOrEqual(2);
    await video.evaluate((element: HTMLVideoElement) => {
      element.muted = true;
      return element.play();
    });
    await expect
      .poll(() => video.evaluate((element: HTMLVideoElement) => element.currentTime))
      .toBeGreaterThan(0.3);
    // Each card went through the states a person can read, in order, and ended done.
    const { statuses } = await taskLog(page);
    for (const status of statuses) expect(status).toMatch(KNOWN_STATUS);
    expect(statuses.filter((status) => status.startsWith("Done"))).toHaveLength(2);
    await screenshot(page, "studio");

    // After a reload the finished tasks are still there, their results read again with fresh links.
    await page.reload();
    await deck.getByRole("link", { name: "PowerPoint (.pptx)" }).waitFor({ timeout: 15_000 });
    await short.locator("video").waitFor({ timeout: 15_000 });
    await context.close();
  });

  it("words a failed render by its error_key, and deletes a note after a confirming press", async () => {
    const { context, page } = await signedInPage(browser);
    await page.goto(`${stackInfo().url}/studio`);
    // A Vietnamese title: UTF-8 through the client's JSON body, the note list and the task card.
    await page.getByLabel("Title (optional)").fill("Quá ngắn");
    await page.getByLabel("Text", { exact: true }).fill("Far too short. Really.");
    await page.getByRole("button", { name: "Save note" }).click();
    const note = page.locator(".note-item").filter({ hasText: "Far too short" });
    await note.getByRole("button", { name: "In use" }).waitFor();
    await note.getByText("Quá ngắn", { exact: true }).waitFor();

    await page.getByRole("radio", { name: "Slide deck" }).check();
    await page.getByRole("button", { name: "Make the deck" }).click();
    const card = page.getByRole("article", { name: "Slide deck: Quá ngắn" });
    await card
      .getByRole("alert")
      .filter({ hasText: "Failed: The note is too short for this: add more text and try again." })
      .waitFor({ timeout: 60_000 });
    await screenshot(page, "studio-failed");
    await card.getByRole("button", { name: "Dismiss" }).click();
    await card.waitFor({ state: "detached" });

    await note.getByRole("button", { name: "Delete" }).click();
    await note.getByRole("button", { name: "Press again to delete" }).click();
    await note.waitFor({ state: "detached" });
    await page.getByText("Choose a note first (Use this note), or save a new one.").waitFor();
    await page.reload();
    await page.getByText(/in all$/).waitFor();
    expect(await page.locator(".note-item").filter({ hasText: "Far too short" }).count()).toBe(0);
    await context.close();
  });
});

describe("community notes in the studio", () => {
  it("publishes a note, finds it on the community tab, and makes a deck from it there", async () => {
    const { context, page } = await signedInPage(browser);
    await page.goto(`${stackInfo().url}/studio`);
    await page.getByLabel("Title (optional)").fill("Tides for everyone");
    await page.getByLabel("Text", { exact: true }).fill(NOTE);
    await page.getByRole("button", { name: "Save note" }).click();
    const note = page.locator(".notes .note-item").filter({ hasText: "Tides for everyone" }).first();
    await note.getByRole("button", { name: "Publish to community" }).click();
    await note.getByRole("button", { name: "Unpublish", pressed: true }).waitFor();

    // The community tab lists it (after a reload: read back from the API) under the default name.
    await page.reload();
    const community = page.getByRole("region", { name: "Community notes" });
    const listed = community.locator(".note-item").filter({ hasText: "Tides for everyone" });
    await listed.getByText("by anonymous").waitFor();
    await listed.getByRole("button", { name: "Use this note" }).click();
    await listed.getByRole("button", { name: "In use" }).waitFor();
    await page.getByText("From the note “Tides for everyone”.").waitFor();

    await page.getByRole("radio", { name: "Slide deck" }).check();
    await page.getByRole("radio", { name: "Clean (white, blue accent)" }).waitFor({ state: "attached" });
    await page.getByRole("button", { name: "Make the deck" }).click();
    await page.getByRole("article", { name: "Slide deck: Tides for everyone" }).waitFor();
    await screenshot(page, "studio-community");

    // Unpublished, it leaves the community tab.
    await note.getByRole("button", { name: "Unpublish" }).click();
    await note.getByRole("button", { name: "Publish to community", pressed: false }).waitFor();
    await page.reload();
    await community.getByText("No community notes yet.").waitFor();
    expect(await community.locator(".note-item").count()).toBe(0);
    await context.close();
  });
});

/** The id of the task of `kind` this page's studio started last (its list in localStorage). */
async function studioTaskId(page: Page, kind: string): Promise<string> {
  const tasks = await page.evaluate(() => localStorage.getItem("voxedge.studio.tasks") ?? "[]");
  const task = (JSON.parse(tasks) as { task_id: string; kind: string }[]).find((t) => t.kind === kind);
  if (!task) throw new Error(`no ${kind} task in the studio's list`);
  return task.task_id;
}

/** A finished content task's data, read from the API with the stack's key. */
async function taskResultData(taskId: string): Promise<{ files: { role: string; url: string }[] }> {
  const response = await fetch(`${stackInfo().url}/v1/create/tasks/${taskId}/result`, {
    headers: { authorization: `Bearer ${stackInfo().key}` },
  });
  const result = (await response.json()) as {
    status: string;
    data: { files: { role: string; url: string }[] };
  };
  expect(result.status).toBe("SUCCESS");
  return result.data;
}

/** The sample_url the catalog gives a voice. */
async function sampleUrl(name: string): Promise<string> {
  const key = stackInfo().key;
  const response = await fetch(`${stackInfo().url}/v1/voices`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const { voices } = (await response.json()) as { voices: { name: string; sample_url: string }[] };
  const url = voices.find((voice) => voice.name === name)?.sample_url;
  if (!url) throw new Error(`no voice ${name}`);
  return url;
}
