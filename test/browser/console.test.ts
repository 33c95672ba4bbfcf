import { readFileSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDialogue } from "../helpers/dialogue.ts";
import { writeWav } from "../helpers/wav.ts";
import { launchChromium, screenshot, signedInPage, stackInfo, tempDir } from "./chromium.ts";

/**
 * The console as a person uses it, in Chromium against the running platform: sign in (and a refused
 * key), upload a file with real progress to a finished transcript, seek the player from it, download
 * it, reload without losing anything, browse history, switch language, keyboard and phone layouts.
 */

let browser: Browser;
let media: ReturnType<typeof tempDir>;
let dialogueWav: string;

beforeAll(async () => {
  media = tempDir();
  dialogueWav = path.join(media.dir, "meeting.wav");
  // Two synthetic voices taking turns (~40 s, ~1.3 MB): enough bytes for a visible upload, two speakers.
  writeWav(dialogueWav, (await buildDialogue(2, 6, 7)).pcm);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  media?.remove();
});

/** Values the upload's progress bar and its text went through, recorded inside the page. */
async function recordUploadProgress(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: { value: number; text: string }[] = [];
    (window as unknown as { uploadProgress: typeof seen }).uploadProgress = seen;
    new MutationObserver(() => {
      const bar = document.querySelector<HTMLProgressElement>('progress[aria-label="Upload progress"]');
      if (!bar) return;
      const text = bar.nextElementSibling?.textContent ?? "";
      const last = seen.at(-1);
      if (!last || last.value !== bar.value || last.text !== text) seen.push({ value: bar.value, text });
    }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
}

describe("signing in", () => {
  it("pre-fills the local dev key, explains a refused key, then keeps a good one across reloads", async () => {
    const { url, key, devKey } = stackInfo();
    const context = await browser.newContext({ locale: "en-US" });
    const page = await context.newPage();
    await page.goto(`${url}/`);
    const field = page.getByLabel("API key");
    await expect.poll(() => field.inputValue()).toBe(devKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toContain("This API key was not accepted");
    await screenshot(page, "sign-in-refused");

    await field.fill(key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("navigation", { name: "Main" }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem("voxedge.apiKey"))).toBe(key);
    await page.reload();
    await page.getByRole("heading", { name: "Transcribe" }).waitFor();

    await page.getByRole("link", { name: "History" }).click();
    await page.getByRole("heading", { name: "History" }).waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${url}/`);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem("voxedge.apiKey"))).toBeNull();
    await context.close();
  });

  it("signs in when the dev key's hint and the model notice arrive while the button is pressed (nothing moves)", async () => {
    const { url, key } = stackInfo();
    const context = await browser.newContext({ locale: "en-US" });
    const page = await context.newPage();
    // the page's two late arrivals: the dev key (its hint) and /health (the synthetic model's notice)
    let answerLate = () => {};
    const lateHeld = new Promise<void>((resolve) => {
      answerLate = resolve;
    });
    for (const late of ["**/console/dev-key", "**/health"]) {
      await page.route(late, async (route) => {
        await lateHeld;
        await route.fallback();
      });
    }
    await page.goto(`${url}/`);
    await page.getByLabel("API key").fill(key);
    const button = page.getByRole("button", { name: "Sign in" });
    const before = await button.boundingBox();
    // a press held 1.5 s, with both answers arriving in the middle of it
    const pressing = button.click({ delay: 1_500 });
    await new Promise((resolve) => setTimeout(resolve, 250));
    answerLate();
    await page.getByText("Filled in with the local dev key").waitFor();
    await page.getByRole("status").filter({ hasText: "Synthetic model" }).waitFor();
    const pressed = await button.boundingBox();
    await pressing;
    expect(pressed?.y).toBe(before?.y);
    await page.getByRole("navigation", { name: "Main" }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem("voxedge.apiKey"))).toBe(key);
    await context.close();
  });
});

describe("transcribing a file", () => {
  let taskId: string;

  it("uploads with real progress (bytes, speed), waits in line, and opens the transcript when done", async () => {
    const { context, page } = await signedInPage(browser);
    // Throttled so the progress of a 1.3 MB upload over loopback is observable: ~400 kB/s.
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 400_000,
    });
    await page.goto(`${stackInfo().url}/`);
    await page.getByLabel("Spoken language").selectOption("en");
    await page.locator("#file-input").setInputFiles(dialogueWav);
    await page.getByText("meeting.wav (").waitFor();
    await recordUploadProgress(page);
    await page.getByRole("button", { name: "Transcribe" }).click();
    await page.locator('progress[aria-label="Upload progress"]').waitFor();
    await screenshot(page, "transcribe-uploading");
    await page.waitForURL(/\/jobs\/[\w-]+$/, { timeout: 120_000 });
    taskId = decodeURIComponent(page.url().split("/jobs/")[1] ?? "");

    const seen = await page.evaluate(
      () => (window as unknown as { uploadProgress: { value: number; text: string }[] }).uploadProgress,
    );
    const partial = seen.filter((s) => s.value > 0 && s.value < 100);
    expect(partial.length).toBeGreaterThanOrEqual(3);
    expect(seen.map((s) => s.value)).toEqual([...seen.map((s) => s.value)].sort((a, b) => a - b));
    expect(seen.some((s) => /\d(\.\d)? (KB|MB) of 1\.\d MB · [\d.]+ KB\/s/.test(s.text))).toBe(true);
    await context.close();
  });

  it("shows the transcript synced to the player: a segment's time or a word seeks it, the segment lights up", async () => {
    const { context, page } = await signedInPage(browser);
    await page.goto(`${stackInfo().url}/jobs/${taskId}`);
    const segments = page.locator("li.segment");
    await segments.first().waitFor();
    const audio = page.locator("audio");
    expect(await audio.getAttribute("src")).toMatch(/\/media\/uploads\//);
    await audio.evaluate(
      (element: HTMLAudioElement) =>
        element.readyState >= 1 ||
        new Promise((resolve) => element.addEventListener("loadedmetadata", resolve, { once: true })),
    );
    const starts = await page
      .locator("button.segment-time")
      .evaluateAll((buttons) =>
        buttons
          .map((b) => b.closest("li")?.querySelector<HTMLElement>(".word")?.dataset.start ?? "0")
          .map(Number),
      );
    const target = starts.findIndex((start) => start > 1);
    expect(target).toBeGreaterThanOrEqual(0);
    expect(await audio.evaluate((element: HTMLAudioElement) => element.currentTime)).toBeLessThan(0.5);

    await page.locator("button.segment-time").nth(target).click();
    await expect
      .poll(() => audio.evaluate((element: HTMLAudioElement) => element.currentTime))
      .toBeGreaterThanOrEqual(starts[target]! - 0.01);
    await expect.poll(() => segments.nth(target).getAttribute("aria-current")).toBe("true");

    // A word further into another segment: the player jumps to that word's estimated time.
    await audio.evaluate((element: HTMLAudioElement) => element.pause());
    const word = page.locator("li.segment .word").last();
    const wordStart = Number(await word.getAttribute("data-start"));
    await word.click();
    await expect
      .poll(() => audio.evaluate((element: HTMLAudioElement) => element.currentTime))
      .toBeGreaterThanOrEqual(wordStart - 0.01);
    await screenshot(page, "job-transcript");
    await context.close();
  });

  it("renames speakers locally, enrols a named voice from the job's audio, downloads TXT/SRT/VTT/JSON made from the result (as the API exports them), offers a curl", async () => {
    const { context, page } = await signedInPage(browser);
    await page.goto(`${stackInfo().url}/jobs/${taskId}`);
    await page.locator("li.segment").first().waitFor();
    const result = (await (
      await fetch(`${stackInfo().url}/transcribe/${taskId}`, {
        headers: { authorization: `Bearer ${stackInfo().key}` },
      })
    ).json()) as { result: { segments: { speaker: string | null; text: string }[] } };
    const firstSpeaker = result.result.segments.find((s) => s.speaker)?.speaker;
    expect(firstSpeaker).toMatch(/^SPEAKER_\d\d$/);

    await page.getByLabel(firstSpeaker!).fill("Alice");
    await page.getByLabel(firstSpeaker!).press("Tab");
    await page.locator(".speaker-tag", { hasText: "Alice" }).first().waitFor();
    await page.reload();
    await page.locator(".speaker-tag", { hasText: "Alice" }).first().waitFor();
    await screenshot(page, "job-named-speakers");

    // Alice's voice enrolled from her longest turn in the job's own audio, cut in the browser.
    await page.getByRole("button", { name: "Enrol this voice as Alice" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: /^Enrolled as Alice, from / })
      .waitFor({ timeout: 30_000 });
    const enrolled = (await (
      await fetch(`${stackInfo().url}/v1/speakers`, {
        headers: { authorization: `Bearer ${stackInfo().key}` },
      })
    ).json()) as { data: { id: string; name: string; duration_sec: number | null }[] };
    const alice = enrolled.data.find((speaker) => speaker.name === "Alice");
    expect(alice?.duration_sec).toBeGreaterThanOrEqual(2);
    expect(alice?.duration_sec).toBeLessThanOrEqual(30);
    const removed = await fetch(`${stackInfo().url}/v1/speakers/${alice?.id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${stackInfo().key}` },
    });
    expect(removed.status).toBe(200);

    const saved: Record<string, string> = {};
    for (const format of ["TXT", "SRT", "VTT", "JSON"]) {
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("button", { name: `Download ${format}` }).click(),
      ]);
      expect(download.suggestedFilename()).toBe(`meeting.${format.toLowerCase()}`);
      saved[format] = readFileSync(await download.path(), "utf8");
    }
    const cues = result.result.segments.filter((s) => s.text.trim()).length;
    expect(saved.SRT).toMatch(/^1\n\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}\n/);
    expect(saved.SRT!.match(/ --> /g)?.length).toBe(cues);
    expect(saved.VTT).toMatch(/^WEBVTT\n\n\d\d:\d\d:\d\d\.\d{3} --> /);
    expect(saved.VTT).toContain("<v Alice>");
    expect(saved.TXT).toContain("Alice: ");
    // the API's export of the same job comes from the same writer: the console's file differs only by
    // the name given to the speaker
    for (const format of ["SRT", "VTT"]) {
      const exported = await fetch(
        `${stackInfo().url}/transcribe/${taskId}/subtitles?format=${format.toLowerCase()}`,
        { headers: { authorization: `Bearer ${stackInfo().key}` } },
      );
      expect(exported.status).toBe(200);
      expect(exported.headers.get("content-disposition")).toBe(
        `attachment; filename="${taskId}.${format.toLowerCase()}"`,
      );
      const renamed = (await exported.text())
        .replaceAll(`${firstSpeaker}: `, "Alice: ")
        .replaceAll(`<v ${firstSpeaker}>`, "<v Alice>");
      expect(renamed).toBe(saved[format]);
    }
    expect(JSON.parse(saved.JSON!)).toMatchObject({
      segments: result.result.segments,
      speaker_names: { [firstSpeaker!]: "Alice" },
    });

    const curl = await page.getByLabel("The same job with curl").inputValue();
    expect(curl).toBe(
      `curl -s -H "Authorization: Bearer $VOXEDGE_API_KEY" ${stackInfo().url}/transcribe/${taskId}`,
    );
    expect(curl).not.toContain(stackInfo().key);
    await context.close();
  });

  it("keeps an enqueued job across a reload and shows it done with a link to open", async () => {
    const { context, page } = await signedInPage(browser);
    await page.goto(`${stackInfo().url}/`);
    await page.locator("#file-input").setInputFiles(dialogueWav);
    await page.getByRole("button", { name: "Transcribe" }).click();
    const card = page.getByRole("article", { name: "meeting.wav" });
    await card.waitFor();
    await page.reload();
    await card.waitFor();
    await card.getByText("Done").waitFor({ timeout: 120_000 });
    await card.getByRole("link", { name: "Open" }).click();
    await page.locator("li.segment").first().waitFor();
    expect(page.url()).toMatch(/\/jobs\/[\w-]+$/);
    // Opened: no longer listed as running.
    await page.getByRole("link", { name: "Transcribe" }).click();
    await page.getByRole("heading", { name: "Transcribe" }).waitFor();
    expect(await page.getByRole("article", { name: "meeting.wav" }).count()).toBe(0);
    await context.close();
  });

  it("transcribes from a pasted URL (no player: the audio stays where it is), and words a refused URL", async () => {
    const { context, page } = await signedInPage(browser);
    await page.goto(`${stackInfo().url}/`);
    await page.getByLabel("From a URL").check();
    const field = page.getByLabel("Audio or video URL");
    await field.fill(`${stackInfo().mediaOrigin}/missing.wav`);
    await page.getByRole("button", { name: "Transcribe" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/^The request was refused \(400\): .*404/);

    await field.fill(`${stackInfo().mediaOrigin}/talk.wav`);
    await page.getByRole("button", { name: "Transcribe" }).click();
    await page.waitForURL(/\/jobs\/[\w-]+$/, { timeout: 120_000 });
    await page.getByText("The audio of a job started from a URL is not stored").waitFor();
    expect(await page.locator("audio").count()).toBe(0);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(
      `${stackInfo().mediaOrigin}/talk.wav`,
    );
    await context.close();
  });

  it("takes a file dropped on the drop zone", async () => {
    const { context, page } = await signedInPage(browser);
    await page.goto(`${stackInfo().url}/`);
    const dataTransfer = await page.evaluateHandle(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(2_500)], "dropped.mp3", { type: "audio/mpeg" }));
      return transfer;
    });
    await page.dispatchEvent(".drop-zone", "dragover", { dataTransfer });
    expect(await page.locator(".drop-zone").getAttribute("class")).toContain("drop-over");
    await page.dispatchEvent(".drop-zone", "drop", { dataTransfer });
    await page.getByText("dropped.mp3 (2.5 KB)").waitFor();
    expect(await page.getByRole("button", { name: "Transcribe" }).isEnabled()).toBe(true);
    await context.close();
  });

  it("says so readably when a job does not exist (or is another key's)", async () => {
    const { context, page } = await signedInPage(browser);
    await page.goto(`${stackInfo().url}/jobs/no-such-task`);
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toContain("Not found. It may belong to another API key");
    await context.close();
  });
});

describe("history", () => {
  it("lists this key's jobs newest first, filters by status in the URL, and links to each job", async () => {
    const { context, page } = await signedInPage(browser);
    await page.goto(`${stackInfo().url}/history`);
    const items = page.locator("li.history-item");
    await items.first().waitFor();
    expect(await items.count()).toBeGreaterThanOrEqual(2);
    expect(await page.getByText(/^1–\d+ of \d+$/).textContent()).toMatch(/^1–(\d+) of \1$/);
    await page.getByLabel("Status").selectOption("done");
    await page.waitForURL(/\/history\?status=done$/);
    await expect.poll(() => items.count()).toBeGreaterThanOrEqual(2);
    for (const badge of await items.locator(".badge").allTextContents()) expect(badge).toBe("Done");
    await screenshot(page, "history");
    await page.reload();
    expect(await page.getByLabel("Status").inputValue()).toBe("done");
    await items.first().locator("a").click();
    await page.locator("li.segment").first().waitFor();
    await context.close();
  });

  it("deletes a job from its page and from a history row, each after a confirming second press", async () => {
    const { context, page } = await signedInPage(browser);
    const { url, key, mediaOrigin } = stackInfo();
    const submit = async () => {
      const response = await fetch(`${url}/transcribe`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ file_url: `${mediaOrigin}/talk.wav` }),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { task_id: string }).task_id;
    };
    const fromPage = await submit();
    const fromRow = await submit();

    await page.goto(`${url}/jobs/${fromPage}`);
    const remove = page.getByRole("button", { name: "Delete this job, its audio and its transcript" });
    await remove.click();
    await page.getByRole("button", { name: "Press again to delete for good" }).click();
    await page.waitForURL(/\/history$/);
    const rowLinks = page.locator("li.history-item a.history-link");
    await rowLinks.first().waitFor();
    const hrefs = async () => rowLinks.evaluateAll((links) => links.map((a) => a.getAttribute("href")));
    expect(await hrefs()).not.toContain(`/jobs/${fromPage}`);

    const row = page.locator("li.history-item", { has: page.locator(`a[href="/jobs/${fromRow}"]`) });
    const total = async () =>
      Number((await page.getByText(/^\d+–\d+ of \d+$/).textContent())?.split(" of ")[1]);
    const before = await total();
    await row.getByRole("button", { name: "Delete this job, its audio and its transcript" }).click();
    await row.getByRole("button", { name: "Press again to delete for good" }).click();
    await expect.poll(() => row.count()).toBe(0);
    await expect.poll(total).toBe(before - 1);

    for (const id of [fromPage, fromRow]) {
      const gone = await fetch(`${url}/transcribe/${id}`, { headers: { authorization: `Bearer ${key}` } });
      expect(gone.status).toBe(404);
    }
    await context.close();
  });
});

describe("interface", () => {
  it("names the synthetic model on every page, with the command that fixes it", async () => {
    const { url } = stackInfo();
    // The stack's node serves the synthetic micro model: /health says so, and so must every page.
    const health = (await (await fetch(`${url}/health`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ asr_synthetic: true, asr_fix_command: "npm run model:download -- base" });
    const signedOut = await browser.newContext({ locale: "en-US" });
    const signIn = await signedOut.newPage();
    await signIn.goto(`${url}/`);
    const before = signIn.getByRole("status").filter({ hasText: "Synthetic model" });
    await before.waitFor();
    expect(await before.textContent()).toContain("transcripts are noise");
    await signedOut.close();

    const { context, page } = await signedInPage(browser);
    for (const at of ["/", "/history", "/live", "/studio"]) {
      await page.goto(`${url}${at}`);
      const notice = page.getByRole("status").filter({ hasText: "Synthetic model" });
      await notice.waitFor();
      expect(await notice.locator("code").textContent(), at).toBe("npm run model:download -- base");
    }
    await screenshot(page, "synthetic-model-notice");
    await context.close();
  });

  it("follows the browser's language (results' languages named in it too), switches language, and remembers the choice", async () => {
    const context = await browser.newContext({ locale: "vi-VN" });
    const page = await context.newPage();
    await page.goto(`${stackInfo().url}/`);
    await page.getByRole("heading", { name: "Đăng nhập" }).waitFor();
    expect(await page.locator("html").getAttribute("lang")).toBe("vi");
    await page.getByLabel("Khóa API").fill(stackInfo().key);
    await page.getByRole("button", { name: "Đăng nhập" }).click();
    await page.getByRole("link", { name: "Lịch sử" }).waitFor();
    // the API names a result's language in English; the console says it in the UI language
    await page.goto(`${stackInfo().url}/history?status=done`);
    const rows = page.locator("li.history-item");
    await rows.first().waitFor();
    expect(await rows.filter({ hasText: "· English ·" }).count()).toBe(0);
    expect(await rows.filter({ hasText: "· Tiếng Anh ·" }).count()).toBeGreaterThan(0);
    await rows.filter({ hasText: "· Tiếng Anh ·" }).first().locator("a").first().click();
    await page.getByText(/^Tiếng Anh · \d+:\d\d · \d+ đoạn · \d+ người nói$/).waitFor();
    await page.goto(`${stackInfo().url}/`);
    await page.getByLabel("Ngôn ngữ giao diện").selectOption("en");
    await page.getByRole("link", { name: "History" }).waitFor();
    await page.reload();
    await page.getByRole("heading", { name: "Transcribe" }).waitFor();
    expect(await page.locator("html").getAttribute("lang")).toBe("en");
    await context.close();
  });

  it("is reachable by keyboard with a visible focus ring", async () => {
    const { context, page } = await signedInPage(browser);
    await page.goto(`${stackInfo().url}/`);
    await page.getByRole("heading", { name: "Transcribe" }).waitFor();
    // The focused element's ring, or for a visually hidden input (radio, file) the ring of the box it sits in.
    const focused = () =>
      page.evaluate(() => {
        const element = document.activeElement as HTMLElement;
        const hidden = element.getBoundingClientRect().width <= 1;
        const box = hidden ? (element.closest(".drop-zone, label") as HTMLElement) : element;
        return {
          label: element.textContent?.trim() || `${element.tagName}:${element.getAttribute("type") ?? ""}`,
          outline: getComputedStyle(box).outlineStyle,
        };
      });
    await page.keyboard.press("Tab");
    expect(await focused()).toEqual({ label: "Skip to content", outline: "solid" });
    const reached: string[] = [];
    for (let i = 0; i < 14; i++) {
      await page.keyboard.press("Tab");
      const now = await focused();
      expect(now.outline, now.label).toBe("solid");
      reached.push(now.label);
    }
    expect(reached).toEqual(
      expect.arrayContaining([
        "Transcribe",
        "History",
        "Live",
        "Translate",
        "Studio",
        "Speakers",
        "Sign out",
        "INPUT:radio",
        "INPUT:file",
        "INPUT:text",
      ]),
    );
    await context.close();
  });

  it("fits a phone-sized screen without sideways scrolling", async () => {
    const { context, page } = await signedInPage(browser, {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    for (const path of ["/", "/history", "/live", "/translate", "/studio"]) {
      await page.goto(`${stackInfo().url}${path}`);
      await page.locator("main h1").waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
      await screenshot(page, `phone${path === "/" ? "-transcribe" : path.replace("/", "-")}`);
    }
    await context.close();
  });
});
